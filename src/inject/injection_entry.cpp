// The injection library's one exported symbol. CUDA calls InitializeInjection
// once, from the first CUDA call of the process, when CUDA_INJECTION64_PATH
// names this library (CUPTI's injection mechanism, cupti_callbacks.h docs).
// Everything the tool does starts here; nothing here may throw.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  return 1;
}
