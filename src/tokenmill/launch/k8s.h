// Kubernetes launcher: an Indexed Job whose N pods each run `tokenmill work STORE`.
//
// The manifest: completionMode Indexed, completions = parallelism = N, restartPolicy OnFailure,
// a backoff limit, CPU and memory requests equal to the limits, credentials only from a Secret
// (envFrom secretRef: never inline), terminationGracePeriodSeconds >= 30 so that a worker
// stopped by SIGTERM has time to give its leases back. Printed as YAML (or JSON), or handed to
// `kubectl apply -f -`.
// Thread-safety: the functions are thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/launch/launcher.h"

namespace tokenmill::launch {

struct K8sOptions {
  std::string store;           // the job store: s3:// or gs:// (pods cannot see this machine)
  int workers = 1;             // pods (completions and parallelism). Default: 1
  std::string image;           // container image holding tokenmill (see the Dockerfile). Required
  std::string cpu = "1";       // CPU request and limit ("2", "500m"); the worker's --threads is
                               // this rounded down, at least 1. Default: "1"
  std::string memory = "2Gi";  // memory request and limit. Default: "2Gi"
  std::string secret;          // Secret whose keys become environment variables (AWS_*,
                               // GCS_HMAC_*). Default: empty, none
  std::string name;            // Job name. Default: DefaultLaunchName(store)
  std::string k8s_namespace;   // metadata.namespace. Default: empty, kubectl's current namespace
  std::string binary = "tokenmill";  // the tokenmill command inside the image. Default: tokenmill
  int backoff_limit = -1;            // pod failures before the Job fails. Default: -1 = 3 * workers
  int grace_seconds = 60;            // terminationGracePeriodSeconds, at least 30. Default: 60
  std::string service_account;  // pod serviceAccountName (e.g. for workload identity). Default:
                                // empty, the namespace's default
};

// Checks the options and fills the defaults.
StatusOr<K8sOptions> ResolveK8sOptions(K8sOptions options);

// The worker threads for a CPU quantity: "2" -> 2, "1500m" -> 1, "500m" -> 1, "2.5" -> 2.
StatusOr<int> ThreadsForCpu(std::string_view cpu);

// The Indexed Job manifest. REQUIRES: options resolved and name set.
nlohmann::json K8sJobManifest(const K8sOptions& resolved);

// YAML for a JSON value: block style, every string double-quoted (JSON escapes are valid YAML),
// so the output is exact and needs no YAML library to write.
std::string ToYaml(const nlohmann::json& value);

// Hands the manifest to `kubectl apply -f -` and records the launch. Errors say what to do when
// kubectl is missing or refuses.
StatusOr<LaunchRecord> ApplyK8sJob(const K8sOptions& resolved, const nlohmann::json& manifest);

}  // namespace tokenmill::launch
