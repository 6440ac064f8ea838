/* The compiler's C entry point. The runtime dlopens libcajeta_compiler.so and calls this for
   JIT (Program::compileFile), so the runtime itself never links LLVM. */
#ifndef CAJETA_COMPILER_H
#define CAJETA_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CAJETA_COMPILER_ABI_VERSION 2 /* 2: gpu_archs */

/* The NVPTX architectures every bundle carries PTX for; gpu_archs adds to them. sm_90a (code for
   compute capability 9.0 alone) only where a program has tiles its wgmma tier takes. */
#define CAJETA_COMPILER_BUILTIN_GPU_ARCHS "sm_70,sm_90,sm_90a"

typedef struct cajeta_compile_request {
  uint32_t abi_version;  /* CAJETA_COMPILER_ABI_VERSION */
  const char* file_name; /* used in diagnostics */
  const char* source;    /* the program text */
  size_t source_length;
  int check_bounds; /* nonzero: --check-bounds */
  const char* cpu;  /* CPU to compile for: "native" (default when NULL) or an LLVM CPU name */
  /* Version 2: NVPTX architectures to add to sm_70 and sm_90, comma-separated ("sm_86"); NULL or
     "" for none. */
  const char* gpu_archs;
} cajeta_compile_request;

/* Compiles a program into .cjx bytes. Returns 0 on success. On failure *diagnostics holds the
   rendered diagnostics (file:line:col: error: ...); on success it may hold warnings/notes or be
   NULL. Free both out-pointers with cajeta_compiler_free. */
int cajeta_compile_to_bundle(const cajeta_compile_request* request, void** bundle_bytes,
                             size_t* bundle_size, char** diagnostics);

void cajeta_compiler_free(void* p);

/* A string that changes whenever generated code may change; it keys the JIT cache. */
const char* cajeta_compiler_version(void);

#ifdef __cplusplus
}
#endif
#endif
