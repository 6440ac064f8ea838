/* `host_run_local LIB BUNDLE [ENTRY]`: a C host that dlopens the runtime library LIB with
   RTLD_LOCAL (as Python's ctypes or a plug-in loader does), loads BUNDLE and runs its host code
   with cajeta_host_run_program. It checks that the host payload's calls of the host ABI still
   bind to that library. Exit status: the program's, or 100 when something failed (said on
   stderr). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cajeta_xpu_program cajeta_xpu_program;
typedef int (*LoadFileFn)(const char*, cajeta_xpu_program**);
typedef int (*RunFn)(cajeta_xpu_program*, const char*, const char*, int32_t*);
typedef void (*ReleaseFn)(cajeta_xpu_program*);
typedef const char* (*LastErrorFn)(void);

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s LIB BUNDLE [ENTRY]\n", argv[0]);
    return 100;
  }
  void* Lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
    return 100;
  }
  LoadFileFn Load = (LoadFileFn)dlsym(Lib, "cajeta_xpu_program_load_file");
  RunFn Run = (RunFn)dlsym(Lib, "cajeta_host_run_program");
  ReleaseFn Release = (ReleaseFn)dlsym(Lib, "cajeta_xpu_program_release");
  LastErrorFn LastError = (LastErrorFn)dlsym(Lib, "cajeta_xpu_last_error");
  if (!Load || !Run || !Release || !LastError) {
    fprintf(stderr, "%s lacks the C ABI\n", argv[1]);
    return 100;
  }
  cajeta_xpu_program* Program = NULL;
  if (Load(argv[2], &Program) != 0) {
    fprintf(stderr, "load: %s\n", LastError());
    return 100;
  }
  int32_t Status = 0;
  int Rc = Run(Program, argc > 3 ? argv[3] : NULL, NULL, &Status);
  if (Rc != 0)
    fprintf(stderr, "run: %s\n", LastError());
  Release(Program);
  return Rc != 0 ? 100 : Status;
}
