// S3 settings and credentials, found the way the AWS CLI and SDKs find them.
//
//   credentials: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN), else the
//                profile (AWS_PROFILE, default "default") in the shared credentials file
//                (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials), else in the config
//                file (AWS_CONFIG_FILE, default ~/.aws/config); none: anonymous requests.
//   region:      AWS_REGION, AWS_DEFAULT_REGION, the profile's `region`, else us-east-1.
//   endpoint:    AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's `s3 = endpoint_url` or
//                `endpoint_url`, else https://s3.<region>.amazonaws.com.
//   addressing:  TOKENMILL_S3_ADDRESSING_STYLE=path|virtual|auto, the profile's
//                `s3 = addressing_style`, else auto: path style when the endpoint host is an IP
//                address or localhost (or the bucket name has a dot over https), else virtual.
//   If-Match:    TOKENMILL_S3_IF_MATCH_QUOTES=auto|quoted|unquoted (see s3_storage.h).
// The secret key and the session token are registered with RegisterSecret() when loaded.
// Thread-safety: functions are thread-safe; values are plain data.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"

namespace tokenmill {

enum class AddressingStyle { kAuto, kPath, kVirtual };
enum class IfMatchQuotes { kAuto, kQuoted, kUnquoted };

struct S3Config {
  std::string endpoint;  // "https://s3.us-east-1.amazonaws.com", no trailing '/'
  std::string region = "us-east-1";
  std::string access_key_id;  // empty: anonymous (unsigned) requests
  std::string secret_access_key;
  std::string session_token;
  AddressingStyle addressing = AddressingStyle::kAuto;
  IfMatchQuotes if_match_quotes = IfMatchQuotes::kAuto;
  std::string credentials_source;  // for messages: "environment", "<file> [profile]", "none"
};

// Looks up an environment variable; nullopt if unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment.
EnvLookup ProcessEnv();

// Loads the settings from `env` and the files it names. InvalidArgument with the variable or file
// to fix on bad values (an unknown AWS_PROFILE, a key without its secret, a bad endpoint URL).
StatusOr<S3Config> LoadS3Config(const EnvLookup& env = ProcessEnv());

// The AWS shared-file format: "[section]" headers, "key = value" lines, '#'/';' comments, and
// nested blocks ("s3 =" followed by indented "key = value" lines, stored as "s3.key").
// Section names are returned as written ("default", "profile dev").
std::map<std::string, std::map<std::string, std::string>> ParseAwsIni(std::string_view text);

// True if `host` is an IPv4/IPv6 literal or "localhost".
bool IsIpOrLocalhost(std::string_view host);

}  // namespace tokenmill
