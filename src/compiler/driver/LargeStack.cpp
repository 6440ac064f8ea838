#include "compiler/driver/LargeStack.h"

#include <exception>
#include <pthread.h>

namespace cajeta::driver {
namespace {

struct Job {
  const std::function<void()>* Work;
  std::exception_ptr Thrown;
};

void* runJob(void* Arg) {
  Job& J = *static_cast<Job*>(Arg);
  try {
    (*J.Work)();
  } catch (...) {
    J.Thrown = std::current_exception(); // rethrown on the caller's thread
  }
  return nullptr;
}

} // namespace

void runOnLargeStack(const std::function<void()>& Work) {
  Job J{&Work, nullptr};
  pthread_attr_t Attr;
  pthread_t Thread;
  bool Started = pthread_attr_init(&Attr) == 0 &&
                 pthread_attr_setstacksize(&Attr, CompilerStackBytes) == 0 &&
                 pthread_create(&Thread, &Attr, runJob, &J) == 0;
  pthread_attr_destroy(&Attr);
  if (!Started) {
    Work(); // no thread to be had: the caller's stack, as before
    return;
  }
  pthread_join(Thread, nullptr);
  if (J.Thrown)
    std::rethrow_exception(J.Thrown);
}

} // namespace cajeta::driver
