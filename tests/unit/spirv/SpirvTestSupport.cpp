// Test support for spirv_tests.
#include "SpirvTestSupport.h"

#include "compiler/lowering/spirv/SpirvTools.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cajeta::lowering::spirv::test {

std::string readFile(const std::string& Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

driver::FrontendResult frontend(const std::string& Name, const std::string& Source) {
  return driver::Compiler::runFrontend(Name, Source);
}

bool spirvVal(const Words& Module, const std::string& Version, std::string& Output) {
  std::string Val = CAJETA_SPIRV_VAL;
  if (Val.empty() || Val.find("NOTFOUND") != std::string::npos) {
    Output = "spirv-val was not found at configure time (install spirv-tools)";
    return false;
  }
  static std::atomic<unsigned> Counter{0};
  std::string Path = std::string(CAJETA_SPIRV_TEST_TMP) + "/m" + std::to_string(getpid()) + "_" +
                     std::to_string(Counter++) + ".spv";
  {
    std::ofstream Out(Path, std::ios::binary);
    Out.write(reinterpret_cast<const char*>(Module.data()), std::streamsize(Module.size() * 4));
  }
  std::string Cmd = Val + " --target-env vulkan" + Version + " " + Path + " 2>&1";
  FILE* P = popen(Cmd.c_str(), "r");
  if (!P) {
    Output = "cannot run " + Cmd;
    return false;
  }
  char Buf[512];
  Output.clear();
  while (fgets(Buf, sizeof Buf, P))
    Output += Buf;
  int Status = pclose(P);
  std::remove(Path.c_str());
  return Status == 0;
}

std::string disassemble(const Words& Module) {
  std::string Text, Message;
  if (!SpirvTools::disassemble(Module, Text, Message))
    ADD_FAILURE() << "disassembly failed: " << Message;
  return Text;
}

SpirvKernel emit(const driver::FrontendResult& F, const std::string& Kernel,
                 const SpirvEmitOptions& O) {
  const kir::Function* K = F.Kir ? F.Kir->findFunction(Kernel) : nullptr;
  if (!K) {
    ADD_FAILURE() << "no kernel " << Kernel;
    return {};
  }
  return SpirvPayloadBuilder::emitKernel(*F.Kir, *K, O);
}

} // namespace cajeta::lowering::spirv::test
