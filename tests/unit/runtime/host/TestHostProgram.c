/* A hand-written host payload: what `cajeta build` compiles a program's host methods into (the
   bundle's "host" payload), written here in C against the host ABI (cajeta/xpu/cajeta_host.h).
   It is linked without libcajeta_xpu.so, as the compiler's is: its cajeta_host_* calls stay
   undefined until the runtime loads it (dlopen with RTLD_NOW) and binds them to the library the
   process has loaded. HostRunTest.cpp's bundle lists these functions in its attributes. */
#include "cajeta/xpu/cajeta_host.h"

#include <string.h>

static int32_t Scale; /* a static field: 0 until the static initialiser runs */

/* The static initialiser (kir::Module::StaticInit). */
void cj_host_init(void) {
  Scale = 3;
}

/* P.main: y = Scale * x + y with the test kernel K.saxpy on the program's device, printed. */
void cj_host_P_main(void) {
  enum { N = 4 };
  void* X = cajeta_host_array_new(N, sizeof(float), 10);
  void* Y = cajeta_host_array_new(N, sizeof(float), 11);
  float* Xs = (float*)((char*)X + CAJETA_HOST_ARRAY_DATA_OFFSET);
  float* Ys = (float*)((char*)Y + CAJETA_HOST_ARRAY_DATA_OFFSET);
  for (int I = 0; I != N; ++I) {
    Xs[I] = (float)I;
    Ys[I] = 1.0f;
  }
  cajeta_xpu_buffer* Bx = cajeta_host_buffer_new(N, CAJETA_XPU_FLOAT32, 12);
  cajeta_xpu_buffer* By = cajeta_host_buffer_new(N, CAJETA_XPU_FLOAT32, 13);
  cajeta_host_buffer_upload(Bx, X, NULL, 14);
  cajeta_host_buffer_upload(By, Y, NULL, 15);
  cajeta_xpu_arg Args[4];
  memset(Args, 0, sizeof(Args));
  Args[0].kind = CAJETA_XPU_ARG_BUFFER;
  Args[0].value.buffer = By;
  Args[1].kind = CAJETA_XPU_ARG_BUFFER;
  Args[1].value.buffer = Bx;
  float A = (float)Scale;
  uint32_t ABits;
  memcpy(&ABits, &A, sizeof(ABits));
  Args[2].kind = CAJETA_XPU_ARG_SCALAR;
  Args[2].type = CAJETA_XPU_FLOAT32;
  Args[2].value.bits = ABits;
  Args[3].kind = CAJETA_XPU_ARG_SCALAR;
  Args[3].type = CAJETA_XPU_UINT32;
  Args[3].value.bits = N;
  const uint32_t Geometry[6] = {1, 1, 1, N, 1, 1};
  cajeta_host_launch("K.saxpy", NULL, Geometry, Args, 4, 16);
  cajeta_host_buffer_download(By, Y, NULL, 17);
  for (int I = 0; I != N; ++I) {
    cajeta_host_print_f32(Ys[I]);
    cajeta_host_print_str(I + 1 == N ? "" : " ");
  }
  cajeta_host_print_newline();
}

/* P.status: returns int32, the exit status (it reads the static field). */
int32_t cj_host_P_status(void) {
  return Scale + 4;
}

/* P.raise: an uncaught ArrayIndexOutOfBoundsException at line 12. */
void cj_host_P_raise(void) {
  cajeta_host_index_fail(5, 4, 12);
}
