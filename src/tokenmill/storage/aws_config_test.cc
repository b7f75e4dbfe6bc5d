#include "tokenmill/storage/aws_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "tokenmill/base/log.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

class AwsConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(home_ + "/.aws");
    vars_["HOME"] = home_;
  }

  EnvLookup Env() {
    return [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars_.find(name);
      if (it == vars_.end()) return std::nullopt;
      return it->second;
    };
  }
  void WriteFile(const std::string& rel, const std::string& text) {
    std::ofstream(home_ + "/" + rel) << text;
  }

  testing::TempDir tmp_{"tm_aws"};
  const std::string home_ = tmp_.path();
  std::map<std::string, std::string> vars_;
};

TEST_F(AwsConfigTest, DefaultsWithoutAnything) {
  StatusOr<S3Config> c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->region, "us-east-1");
  EXPECT_EQ(c->endpoint, "https://s3.us-east-1.amazonaws.com");
  EXPECT_TRUE(c->access_key_id.empty());
  EXPECT_EQ(c->addressing, AddressingStyle::kAuto);
  EXPECT_EQ(c->if_match_quotes, IfMatchQuotes::kAuto);
  EXPECT_NE(c->credentials_source.find("anonymous"), std::string::npos);
}

TEST_F(AwsConfigTest, EnvironmentWins) {
  WriteFile(".aws/credentials",
            "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n");
  vars_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  vars_["AWS_SECRET_ACCESS_KEY"] = "envsecret-registered";
  vars_["AWS_SESSION_TOKEN"] = "envtoken-registered";
  vars_["AWS_DEFAULT_REGION"] = "eu-west-3";
  vars_["AWS_ENDPOINT_URL"] = "http://127.0.0.1:7480/";
  vars_["AWS_ENDPOINT_URL_S3"] = "http://localhost:9000";
  StatusOr<S3Config> c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "ENVKEY");
  EXPECT_EQ(c->secret_access_key, "envsecret-registered");
  EXPECT_EQ(c->session_token, "envtoken-registered");
  EXPECT_EQ(c->region, "eu-west-3");
  EXPECT_EQ(c->endpoint, "http://localhost:9000");
  EXPECT_EQ(c->credentials_source, "environment");
  // Loading registers the secrets for redaction.
  EXPECT_EQ(RedactSecrets("key envsecret-registered token envtoken-registered"),
            "key [REDACTED] token [REDACTED]");
  vars_["AWS_REGION"] = "ap-south-1";
  vars_.erase("AWS_ENDPOINT_URL_S3");
  c = LoadS3Config(Env());
  EXPECT_EQ(c->region, "ap-south-1");
  EXPECT_EQ(c->endpoint, "http://127.0.0.1:7480");
}

TEST_F(AwsConfigTest, ProfilesFromSharedFiles) {
  WriteFile(".aws/credentials",
            "# comment\n[default]\naws_access_key_id=DEF\naws_secret_access_key=defsecret\n\n"
            "[dev]\naws_access_key_id = DEVKEY ; not a comment in AWS files\n"
            "aws_secret_access_key = devsecret\naws_session_token = devtoken\n");
  WriteFile(".aws/config",
            "[default]\nregion = us-west-2\n[profile dev]\nregion = eu-central-1\ns3 =\n"
            "  addressing_style = path\n  endpoint_url = https://minio.example:9000\n");
  StatusOr<S3Config> c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->access_key_id, "DEF");
  EXPECT_EQ(c->region, "us-west-2");
  EXPECT_EQ(c->endpoint, "https://s3.us-west-2.amazonaws.com");

  vars_["AWS_PROFILE"] = "dev";
  c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "DEVKEY ; not a comment in AWS files");
  EXPECT_EQ(c->session_token, "devtoken");
  EXPECT_EQ(c->region, "eu-central-1");
  EXPECT_EQ(c->endpoint, "https://minio.example:9000");
  EXPECT_EQ(c->addressing, AddressingStyle::kPath);
  EXPECT_NE(c->credentials_source.find("[dev]"), std::string::npos);

  vars_["TOKENMILL_S3_ADDRESSING_STYLE"] = "virtual";
  EXPECT_EQ(LoadS3Config(Env())->addressing, AddressingStyle::kVirtual);
}

TEST_F(AwsConfigTest, FilesNamedByTheEnvironment) {
  WriteFile("creds", "[x]\naws_access_key_id=K\naws_secret_access_key=S\n");
  WriteFile("conf", "[profile x]\nregion = sa-east-1\nendpoint_url = http://10.0.0.5:8080\n");
  vars_["AWS_SHARED_CREDENTIALS_FILE"] = home_ + "/creds";
  vars_["AWS_CONFIG_FILE"] = home_ + "/conf";
  vars_["AWS_PROFILE"] = "x";
  StatusOr<S3Config> c = LoadS3Config(Env());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->access_key_id, "K");
  EXPECT_EQ(c->region, "sa-east-1");
  EXPECT_EQ(c->endpoint, "http://10.0.0.5:8080");
}

TEST_F(AwsConfigTest, ClearErrors) {
  vars_["AWS_PROFILE"] = "nope";
  StatusOr<S3Config> c = LoadS3Config(Env());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("nope"), std::string::npos);
  vars_.erase("AWS_PROFILE");

  vars_["AWS_ACCESS_KEY_ID"] = "ONLYKEY";
  c = LoadS3Config(Env());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
  vars_.erase("AWS_ACCESS_KEY_ID");

  vars_["AWS_ENDPOINT_URL"] = "127.0.0.1:7480";
  c = LoadS3Config(Env());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("AWS_ENDPOINT_URL"), std::string::npos);
  vars_["AWS_ENDPOINT_URL"] = "http://host/with/path";
  EXPECT_FALSE(LoadS3Config(Env()).ok());
  vars_.erase("AWS_ENDPOINT_URL");

  vars_["TOKENMILL_S3_ADDRESSING_STYLE"] = "sideways";
  EXPECT_FALSE(LoadS3Config(Env()).ok());
  vars_.erase("TOKENMILL_S3_ADDRESSING_STYLE");
  vars_["TOKENMILL_S3_IF_MATCH_QUOTES"] = "maybe";
  EXPECT_FALSE(LoadS3Config(Env()).ok());
  vars_["TOKENMILL_S3_IF_MATCH_QUOTES"] = "quoted";
  EXPECT_EQ(LoadS3Config(Env())->if_match_quotes, IfMatchQuotes::kQuoted);
}

TEST(IsIpOrLocalhostTest, Cases) {
  EXPECT_TRUE(IsIpOrLocalhost("localhost"));
  EXPECT_TRUE(IsIpOrLocalhost("127.0.0.1"));
  EXPECT_TRUE(IsIpOrLocalhost("[::1]"));
  EXPECT_FALSE(IsIpOrLocalhost("s3.amazonaws.com"));
  EXPECT_FALSE(IsIpOrLocalhost("1.2.3"));
  EXPECT_FALSE(IsIpOrLocalhost(""));
}

}  // namespace
}  // namespace tokenmill
