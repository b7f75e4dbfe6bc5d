#include "tokenmill/storage/aws_config.h"

#include <cstdlib>

#include "tokenmill/base/log.h"
#include "tokenmill/base/small_file.h"

namespace tokenmill {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<std::string> NonEmpty(const EnvLookup& env, const std::string& name) {
  std::optional<std::string> v = env(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

std::string ExpandHome(const std::string& path, const EnvLookup& env) {
  if (!path.starts_with("~/")) return path;
  std::optional<std::string> home = NonEmpty(env, "HOME");
  return (home ? *home : std::string()) + path.substr(1);
}

const std::map<std::string, std::string>* FindSection(
    const std::map<std::string, std::map<std::string, std::string>>& ini, const std::string& name) {
  auto it = ini.find(name);
  return it == ini.end() ? nullptr : &it->second;
}

std::string Get(const std::map<std::string, std::string>* section, const std::string& key) {
  if (section == nullptr) return "";
  auto it = section->find(key);
  return it == section->end() ? "" : it->second;
}

StatusOr<AddressingStyle> ParseAddressing(const std::string& v, const std::string& where) {
  if (v.empty() || v == "auto") return AddressingStyle::kAuto;
  if (v == "path") return AddressingStyle::kPath;
  if (v == "virtual") return AddressingStyle::kVirtual;
  return Status::InvalidArgument(where + "=" + v + " is not valid: use path, virtual or auto");
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

std::map<std::string, std::map<std::string, std::string>> ParseAwsIni(std::string_view text) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::string section;
  std::string nested;  // the key of an open "s3 =" block
  bool in_section = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = std::string(Trim(line.substr(1, line.size() - 2)));
      in_section = true;
      nested.clear();
      out[section];
      continue;
    }
    if (!in_section) continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(Trim(line.substr(0, eq)));
    std::string value(Trim(line.substr(eq + 1)));
    if (indented && !nested.empty()) {
      out[section][nested + "." + key] = value;
      continue;
    }
    nested.clear();
    if (value.empty()) {
      nested = key;  // the start of a nested block
      continue;
    }
    out[section][key] = value;
  }
  return out;
}

bool IsIpOrLocalhost(std::string_view host) {
  if (host == "localhost") return true;
  if (host.starts_with('[')) return true;  // IPv6 literal
  if (host.empty()) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3;
}

StatusOr<S3Config> LoadS3Config(const EnvLookup& env) {
  S3Config config;
  std::string profile = NonEmpty(env, "AWS_PROFILE")
                            .value_or(NonEmpty(env, "AWS_DEFAULT_PROFILE").value_or("default"));
  bool profile_explicit = NonEmpty(env, "AWS_PROFILE") || NonEmpty(env, "AWS_DEFAULT_PROFILE");

  std::string cred_path =
      ExpandHome(NonEmpty(env, "AWS_SHARED_CREDENTIALS_FILE").value_or("~/.aws/credentials"), env);
  std::string config_path =
      ExpandHome(NonEmpty(env, "AWS_CONFIG_FILE").value_or("~/.aws/config"), env);
  auto cred_ini = ParseAwsIni(ReadSmallFile(cred_path).value_or(""));
  auto config_ini = ParseAwsIni(ReadSmallFile(config_path).value_or(""));
  const auto* cred_section = FindSection(cred_ini, profile);
  const auto* config_section =
      FindSection(config_ini, profile == "default" ? "default" : "profile " + profile);
  if (config_section == nullptr && profile == "default") {
    config_section = FindSection(config_ini, "profile default");
  }
  if (profile_explicit && cred_section == nullptr && config_section == nullptr) {
    return Status::InvalidArgument("AWS profile '" + profile + "' (AWS_PROFILE) is in neither " +
                                   cred_path + " nor " + config_path +
                                   ": add it or unset AWS_PROFILE");
  }

  // Credentials.
  std::optional<std::string> env_key = NonEmpty(env, "AWS_ACCESS_KEY_ID");
  std::optional<std::string> env_secret = NonEmpty(env, "AWS_SECRET_ACCESS_KEY");
  if (env_key.has_value() != env_secret.has_value()) {
    return Status::InvalidArgument(
        "only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY is set: set both, or neither to "
        "use the profile '" +
        profile + "'");
  }
  if (env_key) {
    config.access_key_id = *env_key;
    config.secret_access_key = *env_secret;
    config.session_token = NonEmpty(env, "AWS_SESSION_TOKEN").value_or("");
    config.credentials_source = "environment";
  } else {
    for (auto [section, path] :
         {std::pair{cred_section, cred_path}, std::pair{config_section, config_path}}) {
      std::string key = Get(section, "aws_access_key_id");
      std::string secret = Get(section, "aws_secret_access_key");
      if (key.empty() && secret.empty()) continue;
      if (key.empty() || secret.empty()) {
        return Status::InvalidArgument("profile '" + profile + "' in " + path +
                                       " has only one of aws_access_key_id and "
                                       "aws_secret_access_key: set both");
      }
      config.access_key_id = key;
      config.secret_access_key = secret;
      config.session_token = Get(section, "aws_session_token");
      config.credentials_source = path + " [" + profile + "]";
      break;
    }
  }
  if (config.credentials_source.empty()) config.credentials_source = "none (anonymous requests)";
  RegisterSecret(config.secret_access_key);
  RegisterSecret(config.session_token);

  // Region.
  if (auto r = NonEmpty(env, "AWS_REGION")) {
    config.region = *r;
  } else if (auto dr = NonEmpty(env, "AWS_DEFAULT_REGION")) {
    config.region = *dr;
  } else if (std::string pr = Get(config_section, "region"); !pr.empty()) {
    config.region = pr;
  }

  // Endpoint.
  std::string endpoint;
  std::string endpoint_from;
  for (const char* name : {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}) {
    if (auto e = NonEmpty(env, name)) {
      endpoint = *e;
      endpoint_from = name;
      break;
    }
  }
  if (endpoint.empty()) {
    for (const char* key : {"s3.endpoint_url", "endpoint_url"}) {
      if (std::string e = Get(config_section, key); !e.empty()) {
        endpoint = e;
        endpoint_from = config_path + " [" + profile + "] " + key;
        break;
      }
    }
  }
  if (endpoint.empty()) {
    endpoint = "https://s3." + config.region + ".amazonaws.com";
    endpoint_from = "the default for region " + config.region;
  }
  while (endpoint.ends_with('/')) endpoint.pop_back();
  if (!endpoint.starts_with("http://") && !endpoint.starts_with("https://")) {
    return Status::InvalidArgument("S3 endpoint '" + endpoint + "' (from " + endpoint_from +
                                   ") must start with http:// or https://");
  }
  if (endpoint.find('/', endpoint.find("://") + 3) != std::string::npos) {
    return Status::InvalidArgument("S3 endpoint '" + endpoint + "' (from " + endpoint_from +
                                   ") must be scheme://host[:port] without a path");
  }
  config.endpoint = endpoint;

  // Addressing style and If-Match quoting.
  if (auto style = NonEmpty(env, "TOKENMILL_S3_ADDRESSING_STYLE")) {
    TM_ASSIGN_OR_RETURN(config.addressing,
                        ParseAddressing(*style, "TOKENMILL_S3_ADDRESSING_STYLE"));
  } else {
    TM_ASSIGN_OR_RETURN(config.addressing,
                        ParseAddressing(Get(config_section, "s3.addressing_style"),
                                        config_path + " s3.addressing_style"));
  }
  if (auto q = NonEmpty(env, "TOKENMILL_S3_IF_MATCH_QUOTES")) {
    if (*q == "auto") {
      config.if_match_quotes = IfMatchQuotes::kAuto;
    } else if (*q == "quoted") {
      config.if_match_quotes = IfMatchQuotes::kQuoted;
    } else if (*q == "unquoted") {
      config.if_match_quotes = IfMatchQuotes::kUnquoted;
    } else {
      return Status::InvalidArgument("TOKENMILL_S3_IF_MATCH_QUOTES=" + *q +
                                     " is not valid: use auto, quoted or unquoted");
    }
  }
  return config;
}

}  // namespace tokenmill
