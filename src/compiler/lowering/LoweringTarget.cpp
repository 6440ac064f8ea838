// The portable defaults of the LoweringTarget seam: math through LLVM intrinsics and libm.
#include "compiler/lowering/LoweringTarget.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

namespace cajeta::lowering {

LoweringTarget::~LoweringTarget() = default;

kir::TileLoweringConfig LoweringTarget::tileLowering(ImplTier) const {
  return {}; // the portable tile with the default budget
}

namespace {

using kir::IntrinsicOp;

/// The libm name of a one-argument function for float32 ("tanhf") or float64 ("tanh").
std::string libmName(const char* Base, llvm::Type* T) {
  std::string Name = Base;
  if (T->isFloatTy())
    Name += "f";
  return Name;
}

/// A call to a libm function of one float32/float64 argument. libm's tanh/... never touch
/// errno for finite results, and we never read errno, so the call is marked as memory(none).
llvm::Value* callLibm(llvm::IRBuilder<>& B, const char* Base, llvm::Value* X) {
  llvm::Module* M = B.GetInsertBlock()->getModule();
  llvm::Type* T = X->getType();
  llvm::FunctionCallee F = M->getOrInsertFunction(libmName(Base, T), T, T);
  if (auto* Fn = llvm::dyn_cast<llvm::Function>(F.getCallee())) {
    Fn->setDoesNotThrow();
    Fn->setDoesNotAccessMemory();
    Fn->addFnAttr(llvm::Attribute::WillReturn);
  }
  return B.CreateCall(F, {X});
}

/// Float16 math without a half libm: compute in float32, round back to half.
bool needsWidening(llvm::Type* T) {
  return T->isHalfTy();
}

llvm::Value* floatMath(llvm::IRBuilder<>& B, IntrinsicOp Op, llvm::ArrayRef<llvm::Value*> Ops) {
  llvm::Type* T = Ops[0]->getType();
  auto Unary = [&](llvm::Intrinsic::ID Id) { return B.CreateUnaryIntrinsic(Id, Ops[0]); };
  auto Binary = [&](llvm::Intrinsic::ID Id) { return B.CreateBinaryIntrinsic(Id, Ops[0], Ops[1]); };
  switch (Op) {
  case IntrinsicOp::Sqrt:
    return Unary(llvm::Intrinsic::sqrt);
  case IntrinsicOp::Rsqrt:
    return B.CreateFDiv(llvm::ConstantFP::get(T, 1.0), Unary(llvm::Intrinsic::sqrt));
  case IntrinsicOp::Abs:
    return Unary(llvm::Intrinsic::fabs);
  case IntrinsicOp::Floor:
    return Unary(llvm::Intrinsic::floor);
  case IntrinsicOp::Ceil:
    return Unary(llvm::Intrinsic::ceil);
  // Java's Math.min/max: NaN if either is NaN, -0.0 < +0.0.
  case IntrinsicOp::Min:
    return Binary(llvm::Intrinsic::minimum);
  case IntrinsicOp::Max:
    return Binary(llvm::Intrinsic::maximum);
  case IntrinsicOp::Fma:
    return B.CreateIntrinsic(llvm::Intrinsic::fma, {T}, {Ops[0], Ops[1], Ops[2]});
  default:
    break;
  }
  // Transcendentals: libm of the operand type; float16 goes through float32.
  llvm::Value* X = Ops[0];
  llvm::Value* Y = Ops.size() > 1 ? Ops[1] : nullptr;
  if (needsWidening(T)) {
    X = B.CreateFPExt(X, B.getFloatTy());
    if (Y)
      Y = B.CreateFPExt(Y, B.getFloatTy());
  }
  llvm::Value* R = nullptr;
  switch (Op) {
  case IntrinsicOp::Exp:
    R = B.CreateUnaryIntrinsic(llvm::Intrinsic::exp, X);
    break;
  case IntrinsicOp::Log:
    R = B.CreateUnaryIntrinsic(llvm::Intrinsic::log, X);
    break;
  case IntrinsicOp::Sin:
    R = B.CreateUnaryIntrinsic(llvm::Intrinsic::sin, X);
    break;
  case IntrinsicOp::Cos:
    R = B.CreateUnaryIntrinsic(llvm::Intrinsic::cos, X);
    break;
  case IntrinsicOp::Pow:
    R = B.CreateBinaryIntrinsic(llvm::Intrinsic::pow, X, Y);
    break;
  case IntrinsicOp::Tanh:
    R = callLibm(B, "tanh", X);
    break;
  default:
    return nullptr;
  }
  return needsWidening(T) ? B.CreateFPTrunc(R, T) : R;
}

llvm::Value* integerMath(llvm::IRBuilder<>& B, IntrinsicOp Op, llvm::ArrayRef<llvm::Value*> Ops,
                         bool Signed) {
  switch (Op) {
  case IntrinsicOp::Abs: // abs(MIN) wraps to MIN: is_int_min_poison = false
    return B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, Ops[0], B.getFalse());
  case IntrinsicOp::Min:
    return B.CreateBinaryIntrinsic(Signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, Ops[0],
                                   Ops[1]);
  case IntrinsicOp::Max:
    return B.CreateBinaryIntrinsic(Signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, Ops[0],
                                   Ops[1]);
  default:
    return nullptr;
  }
}

} // namespace

llvm::Value* LoweringTarget::emitMinNum(llvm::IRBuilder<>& B, llvm::Value* A, llvm::Value* C,
                                        bool Max) {
  return B.CreateSelect(Max ? B.CreateFCmpOGT(A, C) : B.CreateFCmpOLT(A, C), A, C);
}

llvm::Value* LoweringTarget::emitMath(llvm::IRBuilder<>& B, kir::IntrinsicOp Op,
                                      llvm::ArrayRef<llvm::Value*> Ops, kir::Type Ty) {
  if (Ops.empty())
    return nullptr;
  if (Ty.isFloat())
    return floatMath(B, Op, Ops);
  if (Ty.isInteger())
    return integerMath(B, Op, Ops, Ty.isSigned());
  return nullptr;
}

} // namespace cajeta::lowering
