# Helpers shared by the benchmark scripts (sourced, not run).

# median V1 V2 ...: prints the median of the numbers (the upper one of the two middle values
# for an even count).
median() {
  printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int(NR / 2) + 1]}'
}
