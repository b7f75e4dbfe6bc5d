// Checks of the names and values the launchers pass to schedulers (Slurm, Kubernetes, GCE), so
// that a bad flag gets a clear message before any tool runs. Hand-written rather than std::regex
// (which GCC 12 does not build cleanly under the sanitizers).
// Thread-safety: pure functions.
#pragma once

#include <string_view>

namespace tokenmill::launch {

bool IsDigits(std::string_view s);  // non-empty, 0-9 only

// Slurm: a partition or job name ([A-Za-z0-9_.-]+), a comma-separated list of them, and a time
// limit ("90", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS", UNLIMITED, INFINITE).
bool IsSlurmName(std::string_view s);
bool IsSlurmNameList(std::string_view s);
bool IsSlurmTime(std::string_view s);

// Kubernetes: a DNS-1123 label (Job, namespace names: [a-z0-9-], at most 63, alphanumeric at both
// ends), a DNS-1123 subdomain (Secret, service account names: also '.', at most 253) and a memory
// quantity ("2Gi", "512Mi", "1e9", "1.5G").
bool IsDnsLabel(std::string_view s);
bool IsDnsSubdomain(std::string_view s);
bool IsMemoryQuantity(std::string_view s);

// Compute Engine: a resource name ([a-z][-a-z0-9]*[a-z0-9], at most 63), a zone
// ("us-central1-a"), a machine type ("e2-standard-4"), a project id, a service account e-mail and a
// disk size ("20GB").
bool IsGceName(std::string_view s);
bool IsGceZone(std::string_view s);
bool IsGceMachineType(std::string_view s);
bool IsGceProject(std::string_view s);
bool IsEmail(std::string_view s);
bool IsDiskSize(std::string_view s);

// A YAML mapping key that needs no quotes: [A-Za-z_][A-Za-z0-9_./-]*.
bool IsPlainYamlKey(std::string_view s);

}  // namespace tokenmill::launch
