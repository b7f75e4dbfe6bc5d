#include "tokenmill/launch/names.h"

#include <gtest/gtest.h>

namespace tokenmill::launch {
namespace {

TEST(NamesTest, Slurm) {
  EXPECT_TRUE(IsSlurmName("debug"));
  EXPECT_TRUE(IsSlurmName("gpu_A100.x-1"));
  EXPECT_FALSE(IsSlurmName(""));
  EXPECT_FALSE(IsSlurmName("a b"));
  EXPECT_FALSE(IsSlurmName("a;b"));
  EXPECT_TRUE(IsSlurmNameList("debug,long"));
  EXPECT_FALSE(IsSlurmNameList("debug,"));
  EXPECT_FALSE(IsSlurmNameList(",debug"));
  for (const char* t :
       {"30", "1:30", "01:00:00", "2-00", "2-12:00", "1-00:00:00", "UNLIMITED", "INFINITE"}) {
    EXPECT_TRUE(IsSlurmTime(t)) << t;
  }
  for (const char* t : {"", "an hour", "1:2:3:4", "1:100", "-1", "1-", "1h", "1-2-3", ":30"}) {
    EXPECT_FALSE(IsSlurmTime(t)) << t;
  }
}

TEST(NamesTest, Kubernetes) {
  EXPECT_TRUE(IsDnsLabel("tokenmill-1"));
  EXPECT_TRUE(IsDnsLabel("a"));
  EXPECT_FALSE(IsDnsLabel("Tokenmill"));
  EXPECT_FALSE(IsDnsLabel("-a"));
  EXPECT_FALSE(IsDnsLabel("a-"));
  EXPECT_FALSE(IsDnsLabel("a.b"));
  EXPECT_FALSE(IsDnsLabel(std::string(64, 'a')));
  EXPECT_TRUE(IsDnsLabel(std::string(63, 'a')));
  EXPECT_TRUE(IsDnsSubdomain("my.secret-1"));
  EXPECT_FALSE(IsDnsSubdomain("Bad_Secret"));
  EXPECT_FALSE(IsDnsSubdomain(".a"));
  for (const char* m : {"2Gi", "512Mi", "1e9", "1.5G", "1000", "128974848", "129M", "1E3"}) {
    EXPECT_TRUE(IsMemoryQuantity(m)) << m;
  }
  for (const char* m : {"", "8 gigs", "Gi", "1.Gi", "1GiB", "-1Gi", "1e"}) {
    EXPECT_FALSE(IsMemoryQuantity(m)) << m;
  }
  EXPECT_TRUE(IsPlainYamlKey("app.kubernetes.io/name"));
  EXPECT_TRUE(IsPlainYamlKey("_x"));
  EXPECT_FALSE(IsPlainYamlKey("1x"));
  EXPECT_FALSE(IsPlainYamlKey("a b"));
  EXPECT_FALSE(IsPlainYamlKey("a:b"));
}

TEST(NamesTest, ComputeEngine) {
  EXPECT_TRUE(IsGceName("tokenmill-abc-1"));
  EXPECT_FALSE(IsGceName("1abc"));
  EXPECT_FALSE(IsGceName("abc-"));
  EXPECT_FALSE(IsGceName("Tokenmill_x"));
  for (const char* z : {"us-central1-a", "europe-west4-b", "northamerica-northeast1-c"}) {
    EXPECT_TRUE(IsGceZone(z)) << z;
  }
  for (const char* z :
       {"", "Europe", "us-central1", "us-central-a", "us-central1-ab", "-c1-a", "us-1-a"}) {
    EXPECT_FALSE(IsGceZone(z)) << z;
  }
  EXPECT_TRUE(IsGceMachineType("e2-standard-4"));
  EXPECT_FALSE(IsGceMachineType("big one"));
  EXPECT_TRUE(IsGceProject("my-project"));
  EXPECT_TRUE(IsGceProject("example.com:my-project"));
  EXPECT_FALSE(IsGceProject("p1"));
  EXPECT_FALSE(IsGceProject("My-Project"));
  EXPECT_TRUE(IsEmail("tokenmill@my-project.iam.gserviceaccount.com"));
  EXPECT_FALSE(IsEmail("nobody"));
  EXPECT_FALSE(IsEmail("@x"));
  EXPECT_FALSE(IsEmail("a@"));
  EXPECT_TRUE(IsDiskSize("20GB"));
  EXPECT_TRUE(IsDiskSize("1TB"));
  EXPECT_FALSE(IsDiskSize("GB"));
  EXPECT_FALSE(IsDiskSize("20G"));
  EXPECT_FALSE(IsDigits(""));
  EXPECT_TRUE(IsDigits("0123"));
}

}  // namespace
}  // namespace tokenmill::launch
