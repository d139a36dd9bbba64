# Sourced by scripts/gpu-check.sh and scripts/gpu-prebuild.sh: the targets a
# GPU run uses (the CPU unit tests run in CI, not there), minus the space-
# separated names in GPU_SKIP_TARGETS. Sets `targets`.
targets="rangereplay rangereplay_inject rangereplay_cli_metrics rangereplay_cli_metrics_host metrics-probe workload_cub cupti_pass_cost"
for f in examples/*.cu; do targets+=" $(basename "$f" .cu)"; done
for f in tests/apps/*.cu; do targets+=" app_$(basename "$f" .cu)"; done
for f in tests/gpu/*_test.cu tests/gpu/*_test.cpp bench/*_bench.cu; do [[ -f $f ]] && targets+=" $(basename "${f%.*}")"; done
for skip in ${GPU_SKIP_TARGETS:-}; do targets=$(tr ' ' '\n' <<<"$targets" | grep -vx "$skip" | tr '\n' ' '); done
