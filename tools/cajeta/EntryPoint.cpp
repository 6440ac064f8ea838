// The entry point of a program's host part (EntryPoint.h).
#include "EntryPoint.h"

#include <vector>

namespace cajeta::cli {

const kir::Function* staticInitializer(const kir::Module& Host) {
  if (Host.StaticInit < 0 || size_t(Host.StaticInit) >= Host.Functions.size())
    return nullptr;
  return Host.Functions[size_t(Host.StaticInit)].get();
}

const kir::Function* findEntry(const kir::Module& Host, const std::string& Wanted,
                               std::string& Error) {
  const kir::Function* Init = staticInitializer(Host);
  auto Runnable = [Init](const kir::Function& F) {
    return &F != Init && F.Params.empty() &&
           (F.ReturnType.isVoid() || F.ReturnType == kir::Type::scalar(kir::ScalarType::I32));
  };
  if (!Wanted.empty()) {
    const kir::Function* F = Host.findFunction(Wanted);
    if (!F || F == Init) {
      Error = "no host method '" + Wanted + "' (--main names a static method as Class.method)";
      return nullptr;
    }
    if (!Runnable(*F))
      Error = "'" + Wanted +
              "' cannot be the entry point: it must take no parameters (or "
              "String[] args, as main) and return void or int32";
    return Runnable(*F) ? F : nullptr;
  }
  std::vector<const kir::Function*> Mains, Candidates;
  for (const auto& F : Host.Functions) {
    if (!Runnable(*F))
      continue;
    Candidates.push_back(F.get());
    if (F->Name.size() > 5 && F->Name.compare(F->Name.size() - 5, 5, ".main") == 0)
      Mains.push_back(F.get());
  }
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

} // namespace cajeta::cli
