// The entry point of a program's host part (HostEntryPoint.h).
#include "compiler/driver/HostEntryPoint.h"

namespace cajeta::driver {

const kir::Function* staticInitializer(const kir::Module& Host) {
  if (Host.StaticInit < 0 || size_t(Host.StaticInit) >= Host.Functions.size())
    return nullptr;
  return Host.Functions[size_t(Host.StaticInit)].get();
}

bool isRunnable(const kir::Module& Host, const kir::Function& F) {
  return &F != staticInitializer(Host) && F.Params.empty() &&
         (F.ReturnType.isVoid() || F.ReturnType == kir::Type::scalar(kir::ScalarType::I32));
}

std::vector<const kir::Function*> runnableMethods(const kir::Module& Host) {
  std::vector<const kir::Function*> Runnable;
  for (const auto& F : Host.Functions)
    if (isRunnable(Host, *F))
      Runnable.push_back(F.get());
  return Runnable;
}

const kir::Function* findEntry(const kir::Module& Host, const std::string& Wanted,
                               std::string& Error) {
  if (!Wanted.empty()) {
    const kir::Function* F = Host.findFunction(Wanted);
    if (!F || F == staticInitializer(Host)) {
      Error = "no host method '" + Wanted + "' (--main names a static method as Class.method)";
      return nullptr;
    }
    if (!isRunnable(Host, *F))
      Error = "'" + Wanted +
              "' cannot be the entry point: it must take no parameters (or "
              "String[] args, as main) and return void or int32";
    return isRunnable(Host, *F) ? F : nullptr;
  }
  std::vector<const kir::Function*> Mains, Candidates = runnableMethods(Host);
  for (const kir::Function* F : Candidates)
    if (F->Name.size() > 5 && F->Name.compare(F->Name.size() - 5, 5, ".main") == 0)
      Mains.push_back(F);
  const std::vector<const kir::Function*>& Pick = Mains.empty() ? Candidates : Mains;
  if (Pick.size() == 1)
    return Pick[0];
  if (Pick.empty()) {
    Error = "no entry point: add 'public static void main(String[] args)' (or a parameterless "
            "static method such as run())";
    return nullptr;
  }
  std::string List;
  for (const kir::Function* F : Pick)
    List += (List.empty() ? "" : ", ") + F->Name;
  Error = "several possible entry points (" + List + "); choose one with --main Class.method";
  return nullptr;
}

} // namespace cajeta::driver
