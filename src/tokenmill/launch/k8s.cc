#include "tokenmill/launch/k8s.h"

#include <cmath>

#include "tokenmill/base/log.h"
#include "tokenmill/launch/names.h"
#include "tokenmill/launch/process.h"

namespace tokenmill::launch {
namespace {

bool NeedsQuotedKey(const std::string& key) {
  if (!IsPlainYamlKey(key)) return true;
  static const char* kReserved[] = {"y", "n", "yes", "no", "true", "false", "on", "off", "null",
                                    "Y", "N", "Yes", "No", "True", "False", "On", "Off", "Null"};
  for (const char* r : kReserved) {
    if (key == r) return true;
  }
  return false;
}

std::string YamlKey(const std::string& key) {
  return NeedsQuotedKey(key) ? nlohmann::json(key).dump() : key;
}

std::string YamlScalar(const nlohmann::json& v) {
  if (v.is_object()) return "{}";
  if (v.is_array()) return "[]";
  return v.dump();  // strings double-quoted with JSON escapes, numbers, true/false, null
}

bool IsNonEmptyContainer(const nlohmann::json& v) {
  return (v.is_object() || v.is_array()) && !v.empty();
}

// Appends `v` (a non-empty container) as block lines indented by `indent` spaces.
void EmitBlock(const nlohmann::json& v, size_t indent, std::string* out) {
  std::string pad(indent, ' ');
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      *out += pad + YamlKey(it.key()) + ":";
      if (IsNonEmptyContainer(it.value())) {
        *out += "\n";
        EmitBlock(it.value(), indent + 2, out);
      } else {
        *out += " " + YamlScalar(it.value()) + "\n";
      }
    }
    return;
  }
  for (const nlohmann::json& item : v) {
    if (IsNonEmptyContainer(item)) {
      std::string child;
      EmitBlock(item, indent + 2, &child);
      // Replace the first line's indentation with "- ".
      *out += pad + "- " + child.substr(indent + 2);
    } else {
      *out += pad + "- " + YamlScalar(item) + "\n";
    }
  }
}

}  // namespace

std::string ToYaml(const nlohmann::json& value) {
  if (!IsNonEmptyContainer(value)) return YamlScalar(value) + "\n";
  std::string out;
  EmitBlock(value, 0, &out);
  return out;
}

StatusOr<int> ThreadsForCpu(std::string_view cpu) {
  std::string s(cpu);
  // <digits>[.<digits>][m]
  std::string_view number = cpu;
  bool milli = !number.empty() && number.back() == 'm';
  if (milli) number.remove_suffix(1);
  size_t dot = number.find('.');
  bool valid = dot == std::string_view::npos
                   ? IsDigits(number)
                   : IsDigits(number.substr(0, dot)) && IsDigits(number.substr(dot + 1));
  if (!valid || number.size() > 12) {
    return Status::InvalidArgument("--cpu '" + s +
                                   "' is not a Kubernetes CPU quantity: use e.g. \"2\", \"1.5\" "
                                   "or \"500m\"");
  }
  double value = std::stod(std::string(number));
  if (milli) value /= 1000.0;
  if (value <= 0) return Status::InvalidArgument("--cpu must be more than 0, got '" + s + "'");
  if (value > 4096) {  // `work --threads` takes at most 4096
    return Status::InvalidArgument("--cpu must be at most 4096, got '" + s + "'");
  }
  int threads = static_cast<int>(std::floor(value));
  return threads < 1 ? 1 : threads;
}

StatusOr<K8sOptions> ResolveK8sOptions(K8sOptions o) {
  TM_RETURN_IF_ERROR(ValidateLaunchOptions({o.store, o.workers, false}));
  TM_ASSIGN_OR_RETURN(o.store, CanonicalStore(o.store));
  if (!IsRemoteStore(o.store)) {
    return Status::InvalidArgument(
        "the store " + o.store +
        " is a folder on this machine, which pods cannot reach: plan the job into an s3:// or "
        "gs:// store (`tokenmill plan JOB.toml --store s3://bucket/job`) and launch that");
  }
  if (o.image.empty()) {
    return Status::InvalidArgument(
        "--image is required: the container image with tokenmill (build it from the repo's "
        "Dockerfile, see docs/launchers.md)");
  }
  if (o.image.find_first_of(" \t\n\"'") != std::string::npos) {
    return Status::InvalidArgument("--image '" + o.image + "' is not an image reference");
  }
  TM_RETURN_IF_ERROR(ThreadsForCpu(o.cpu).status());
  if (!IsMemoryQuantity(o.memory)) {
    return Status::InvalidArgument("--memory '" + o.memory +
                                   "' is not a Kubernetes memory quantity: use e.g. \"2Gi\" or "
                                   "\"512Mi\"");
  }
  if (!o.secret.empty() && !IsDnsSubdomain(o.secret)) {
    return Status::InvalidArgument("--secret '" + o.secret +
                                   "' is not a Secret name (lowercase letters, digits, - and .)");
  }
  if (!o.name.empty() && !IsDnsLabel(o.name)) {
    return Status::InvalidArgument("--name '" + o.name +
                                   "' is not a Job name: lowercase letters, digits and -, at "
                                   "most 63 characters, starting and ending alphanumeric");
  }
  if (!o.k8s_namespace.empty() && !IsDnsLabel(o.k8s_namespace)) {
    return Status::InvalidArgument("--namespace '" + o.k8s_namespace + "' is not a namespace name");
  }
  if (!o.service_account.empty() && !IsDnsSubdomain(o.service_account)) {
    return Status::InvalidArgument("--service-account '" + o.service_account +
                                   "' is not a service account name");
  }
  if (o.name.empty()) o.name = DefaultLaunchName(o.store);
  if (o.binary.empty()) o.binary = "tokenmill";
  if (o.backoff_limit < 0) o.backoff_limit = 3 * o.workers;
  if (o.grace_seconds < 30) {
    return Status::InvalidArgument(
        "the termination grace period must be at least 30 s (a worker "
        "needs it to give its leases back), got " +
        std::to_string(o.grace_seconds));
  }
  return o;
}

nlohmann::json K8sJobManifest(const K8sOptions& o) {
  int threads = ThreadsForCpu(o.cpu).ok() ? *ThreadsForCpu(o.cpu) : 1;
  nlohmann::json labels = {{"app.kubernetes.io/name", "tokenmill"},
                           {"app.kubernetes.io/component", "worker"},
                           {"tokenmill.dev/store-tag", StoreTag(o.store)}};
  nlohmann::json metadata = {
      {"name", o.name}, {"labels", labels}, {"annotations", {{"tokenmill.dev/store", o.store}}}};
  if (!o.k8s_namespace.empty()) metadata["namespace"] = o.k8s_namespace;

  nlohmann::json resources = {{"cpu", o.cpu}, {"memory", o.memory}};
  nlohmann::json container = {
      {"name", "worker"},
      {"image", o.image},
      {"imagePullPolicy", "IfNotPresent"},
      {"command", {o.binary, "work", o.store, "--threads", std::to_string(threads)}},
      {"resources", {{"requests", resources}, {"limits", resources}}},
  };
  if (!o.secret.empty()) {
    container["envFrom"] = nlohmann::json::array({{{"secretRef", {{"name", o.secret}}}}});
  }
  nlohmann::json pod_spec = {{"restartPolicy", "OnFailure"},
                             {"terminationGracePeriodSeconds", o.grace_seconds},
                             {"containers", nlohmann::json::array({container})}};
  if (!o.service_account.empty()) pod_spec["serviceAccountName"] = o.service_account;

  return nlohmann::json{{"apiVersion", "batch/v1"},
                        {"kind", "Job"},
                        {"metadata", metadata},
                        {"spec",
                         {{"completionMode", "Indexed"},
                          {"completions", o.workers},
                          {"parallelism", o.workers},
                          {"backoffLimit", o.backoff_limit},
                          {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}}}};
}

StatusOr<LaunchRecord> ApplyK8sJob(const K8sOptions& o, const nlohmann::json& manifest) {
  if (FindExecutable("kubectl").empty()) {
    return Status::FailedPrecondition(
        "kubectl was not found on PATH: install kubectl and point it at your cluster "
        "(KUBECONFIG), or leave out --apply and pipe the printed manifest into "
        "`kubectl apply -f -` where kubectl works");
  }
  RunOptions run;
  run.stdin_data = ToYaml(manifest);
  TM_ASSIGN_OR_RETURN(ProcessResult result, RunProcess({"kubectl", "apply", "-f", "-"}, run));
  if (!result.ok()) {
    std::string err = result.err.empty() ? result.out : result.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return Status::Unavailable(
        "kubectl apply failed (" + result.Describe() + "): " + err +
        " (check `kubectl config current-context` and your access to the namespace; a Job of "
        "the same name cannot be changed: pass another --name or `kubectl delete job " +
        o.name + "`)");
  }
  LaunchRecord record;
  record.launcher = "k8s";
  record.workers = o.workers;
  record.details = {{"job_name", o.name}, {"namespace", o.k8s_namespace},
                    {"image", o.image},   {"cpu", o.cpu},
                    {"memory", o.memory}, {"kubectl", result.out.substr(0, result.out.find('\n'))}};
  StatusOr<LaunchRecord> written = RecordLaunch(o.store, record);
  if (!written.ok()) {
    // The Job runs anyway; only `status` loses the note of it.
    LogWarning("the Job " + o.name + " was applied, but its launch record could not be written: " +
               written.status().ToString());
    return record;
  }
  return written;
}

}  // namespace tokenmill::launch
