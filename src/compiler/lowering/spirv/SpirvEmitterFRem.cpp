// SpirvEmitter's float remainder: an exact fmod on the bits (musl's fmodf/fmod algorithm), since
// Vulkan's OpFRem is x - y * trunc(x / y) (NaN or infinity for large quotients, -0 lost).
#include "compiler/lowering/spirv/SpirvEmitter.h"

#include <spirv/unified1/GLSL.std.450.h>

namespace cajeta::spirv {

uint32_t SpirvEmitter::findMsb(uint32_t V, unsigned Bits) {
  // The index of the highest set bit as a 32-bit integer, -1 for 0 (FindUMsb is 32-bit only).
  if (Bits == 32)
    return glsl(u32(), GLSLstd450FindUMsb, {V});
  uint32_t U64 = Mb.typeInt(64);
  uint32_t Hi = op(spv::Op::OpUConvert, u32(),
                   {op(spv::Op::OpShiftRightLogical, U64, {V, Mb.constInt(64, 32)})});
  uint32_t Lo = op(spv::Op::OpUConvert, u32(), {V});
  uint32_t HiMsb =
      op(spv::Op::OpIAdd, u32(), {glsl(u32(), GLSLstd450FindUMsb, {Hi}), Mb.constU32(32)});
  uint32_t HasHi = op(spv::Op::OpINotEqual, boolTy(), {Hi, Mb.constU32(0)});
  return op(spv::Op::OpSelect, u32(), {HasHi, HiMsb, glsl(u32(), GLSLstd450FindUMsb, {Lo})});
}

uint32_t SpirvEmitter::exactFRem(kir::Type Ty, uint32_t X, uint32_t Y) {
  if (Ty.bits() == 16) { // through float32: both widenings and the result are exact
    kir::Type F32 = kir::Type::scalar(kir::ScalarType::F32);
    uint32_t T32 = valueType(F32);
    uint32_t R =
        exactFRem(F32, op(spv::Op::OpFConvert, T32, {X}), op(spv::Op::OpFConvert, T32, {Y}));
    return op(spv::Op::OpFConvert, valueType(Ty), {R});
  }
  const unsigned N = Ty.bits(), Mant = N == 64 ? 52 : 23, ExpMax = N == 64 ? 0x7ff : 0xff;
  uint32_t T = valueType(Ty), IT = Mb.typeInt(N), I32 = u32(), Bl = boolTy();
  auto C = [&](uint64_t V) { return Mb.constInt(N, V); };
  auto C32 = [&](uint32_t V) { return Mb.constU32(V); };
  auto Wide = [&](uint32_t V32) { // a 32-bit shift count or exponent -> the N-bit type
    return N == 32 ? V32 : op(spv::Op::OpUConvert, IT, {V32});
  };
  auto Narrow = [&](uint32_t V) { return N == 32 ? V : op(spv::Op::OpUConvert, I32, {V}); };
  uint32_t Ux = op(spv::Op::OpBitcast, IT, {X}), Uy = op(spv::Op::OpBitcast, IT, {Y});
  uint32_t Sign = op(spv::Op::OpBitwiseAnd, IT, {Ux, C(uint64_t(1) << (N - 1))});
  uint32_t MagMask = C((uint64_t(1) << (N - 1)) - 1);
  uint32_t Ax = op(spv::Op::OpBitwiseAnd, IT, {Ux, MagMask});
  uint32_t Ay = op(spv::Op::OpBitwiseAnd, IT, {Uy, MagMask});
  auto Exponent = [&](uint32_t A) {
    return Narrow(op(spv::Op::OpShiftRightLogical, IT, {A, C(Mant)}));
  };
  uint32_t Ex = Exponent(Ax), Ey = Exponent(Ay);

  // Special cases: NaN for y == 0, y NaN, x infinite or NaN; x itself when |x| < |y|; a zero
  // with x's sign when |x| == |y|.
  uint32_t YZero = op(spv::Op::OpIEqual, Bl, {Ay, C(0)});
  uint32_t YNan = op(spv::Op::OpIsNan, Bl, {Y});
  uint32_t XNotFinite = op(spv::Op::OpIEqual, Bl, {Ex, C32(ExpMax)});
  uint32_t IsNan =
      op(spv::Op::OpLogicalOr, Bl, {op(spv::Op::OpLogicalOr, Bl, {YZero, YNan}), XNotFinite});
  uint32_t XSmaller = op(spv::Op::OpULessThan, Bl, {Ax, Ay});
  uint32_t XEqual = op(spv::Op::OpIEqual, Bl, {Ax, Ay});
  uint32_t Special =
      op(spv::Op::OpLogicalOr, Bl, {IsNan, op(spv::Op::OpLogicalOr, Bl, {XSmaller, XEqual})});

  // Normalise: the mantissa with its leading one at bit Mant, the exponent adjusted (it goes
  // below 1 for subnormals).
  auto Normalise = [&](uint32_t A, uint32_t E, uint32_t& Mx, uint32_t& Ex2) {
    uint32_t Sub = op(spv::Op::OpIEqual, Bl, {E, C32(0)});
    uint32_t Frac = op(spv::Op::OpBitwiseAnd, IT, {A, C((uint64_t(1) << Mant) - 1)});
    // Subnormal (A != 0 there, or the case is special): shift = Mant - msb(A).
    uint32_t Shift = op(spv::Op::OpISub, I32, {C32(Mant), findMsb(A, N)});
    Shift = glsl(I32, GLSLstd450UMin, {Shift, C32(N - 1)}); // A == 0: a bounded garbage shift
    uint32_t SubM = op(spv::Op::OpShiftLeftLogical, IT, {A, Wide(Shift)});
    uint32_t SubE = op(spv::Op::OpISub, I32, {C32(1), Shift});
    uint32_t NormM = op(spv::Op::OpBitwiseOr, IT, {Frac, C(uint64_t(1) << Mant)});
    Mx = op(spv::Op::OpSelect, IT, {Sub, SubM, NormM});
    Ex2 = op(spv::Op::OpSelect, I32, {Sub, SubE, E});
  };
  uint32_t Mx0, Ex0, My, EyN;
  Normalise(Ax, Ex, Mx0, Ex0);
  Normalise(Ay, Ey, My, EyN);
  Ex0 = op(spv::Op::OpSelect, I32, {Special, EyN, Ex0}); // no iterations for special cases

  // Long division one bit at a time: while ex > ey { m = m - my if that is not negative; m <<= 1;
  // ex-- }. A zero remainder stays zero.
  uint32_t Pre = curLabel();
  uint32_t Header = Mb.newId(), Body = Mb.newId(), Continue = Mb.newId(), Merge = Mb.newId();
  uint32_t MNext = Mb.newId(), ENext = Mb.newId();
  branch(Header);
  beginBlock(Header);
  uint32_t M = op(spv::Op::OpPhi, IT, {Mx0, Pre, MNext, Continue});
  uint32_t E = op(spv::Op::OpPhi, I32, {Ex0, Pre, ENext, Continue});
  opVoid(spv::Op::OpLoopMerge, {Merge, Continue, 0});
  uint32_t Test = Mb.newId();
  branch(Test);
  beginBlock(Test);
  condBranch(op(spv::Op::OpSGreaterThan, Bl, {E, EyN}), Body, Merge);
  beginBlock(Body);
  auto Step = [&](uint32_t V) { // V - my when that does not go negative
    uint32_t D = op(spv::Op::OpISub, IT, {V, My});
    uint32_t Neg =
        op(spv::Op::OpINotEqual, Bl, {op(spv::Op::OpShiftRightLogical, IT, {D, C(N - 1)}), C(0)});
    return op(spv::Op::OpSelect, IT, {Neg, V, D});
  };
  uint32_t MShifted = op(spv::Op::OpShiftLeftLogical, IT, {Step(M), C(1)});
  uint32_t EDown = op(spv::Op::OpISub, I32, {E, C32(1)});
  branch(Continue);
  beginBlock(Continue);
  SpirvModuleBuilder::inst(Cur->Blocks.back().W, spv::Op::OpCopyObject, {IT, MNext, MShifted});
  SpirvModuleBuilder::inst(Cur->Blocks.back().W, spv::Op::OpCopyObject, {I32, ENext, EDown});
  branch(Header);
  beginBlock(Merge);
  uint32_t R = Step(M);
  uint32_t RZero = op(spv::Op::OpIEqual, Bl, {R, C(0)});

  // Renormalise (the leading one back to bit Mant) and rebuild the float.
  uint32_t Shift = op(spv::Op::OpISub, I32, {C32(Mant), findMsb(R, N)});
  Shift = glsl(I32, GLSLstd450UMin, {Shift, C32(N - 1)});
  uint32_t Rm = op(spv::Op::OpShiftLeftLogical, IT, {R, Wide(Shift)});
  uint32_t Re = op(spv::Op::OpISub, I32, {E, Shift});
  uint32_t IsNormal = op(spv::Op::OpSGreaterThan, Bl, {Re, C32(0)});
  uint32_t NormBits = op(spv::Op::OpBitwiseOr, IT,
                         {op(spv::Op::OpISub, IT, {Rm, C(uint64_t(1) << Mant)}),
                          op(spv::Op::OpShiftLeftLogical, IT, {Wide(Re), C(Mant)})});
  uint32_t Down = op(spv::Op::OpISub, I32, {C32(1), Re}); // >= 1 for a subnormal result
  Down = glsl(I32, GLSLstd450UMin, {Down, C32(N - 1)});
  uint32_t SubBits = op(spv::Op::OpShiftRightLogical, IT, {Rm, Wide(Down)});
  uint32_t Mag = op(spv::Op::OpSelect, IT, {IsNormal, NormBits, SubBits});
  Mag = op(spv::Op::OpSelect, IT, {RZero, C(0), Mag});
  uint32_t Result = op(spv::Op::OpBitcast, T, {op(spv::Op::OpBitwiseOr, IT, {Mag, Sign})});

  uint32_t SignedZero = op(spv::Op::OpBitcast, T, {Sign});
  uint32_t XY = arith(spv::Op::OpFMul, T, X, Y);
  uint32_t NanValue = arith(spv::Op::OpFDiv, T, XY, XY); // propagates a NaN operand
  Result = op(spv::Op::OpSelect, T, {XEqual, SignedZero, Result});
  Result = op(spv::Op::OpSelect, T, {XSmaller, X, Result});
  return op(spv::Op::OpSelect, T, {IsNan, NanValue, Result});
}

} // namespace cajeta::spirv
