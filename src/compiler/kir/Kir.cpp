// KIR type helpers, node allocation and operator names.
#include "compiler/kir/Kir.h"

#include <algorithm>

namespace cajeta::kir {

bool Type::isInteger() const {
  return K == Scalar && bundle::isIntegerType(Elem);
}

bool Type::isSigned() const {
  if (K != Scalar)
    return false;
  return Elem == ScalarType::I8 || Elem == ScalarType::I16 || Elem == ScalarType::I32 ||
         Elem == ScalarType::I64;
}

bool Type::isUnsigned() const {
  return isInteger() && !isSigned();
}

bool Type::isFloat() const {
  return K == Scalar && (Elem == ScalarType::F16 || Elem == ScalarType::BF16 ||
                         Elem == ScalarType::F32 || Elem == ScalarType::F64);
}

unsigned Type::bits() const {
  if (K != Scalar)
    return 0;
  if (Elem == ScalarType::Bool)
    return 1;
  return bundle::scalarTypeSize(Elem) * 8;
}

std::string Type::str() const {
  switch (K) {
  case Void:
    return "void";
  case Scalar:
    return bundle::scalarTypeName(Elem);
  case Buffer:
    return std::string("KernelBuffer<") + bundle::scalarTypeName(Elem) + ">";
  case Shared:
    return std::string("Shared<") + bundle::scalarTypeName(Elem) + ">";
  case Pod:
    return "pod#" + std::to_string(PodIndex);
  case Tile:
    return std::string("Tile<") + bundle::scalarTypeName(Elem) + ", " + std::to_string(Rows) +
           ", " + std::to_string(Cols) + ">";
  case Matrix:
    return std::string("Matrix<") + bundle::scalarTypeName(Elem) + ", " + std::to_string(Rows) +
           ", " + std::to_string(Cols) + ", " +
           (MatrixUse == 0   ? "a"
            : MatrixUse == 1 ? "b"
                             : "acc") +
           ">";
  case HeapArray:
    return std::string(bundle::scalarTypeName(Elem)) + "[]";
  case Handle:
    switch (Object) {
    case BufferHandle:
      return std::string("KernelBuffer<") + bundle::scalarTypeName(Elem) + ">";
    case StreamHandle:
      return "KernelStream";
    case EventHandle:
      return "Event";
    case AccelHandle:
      return "AccelerationStructure";
    }
    return "?";
  case String:
    return "String";
  case RayQuery:
    return "RayQuery";
  case Private:
    return std::string(bundle::scalarTypeName(Elem)) + "[private]";
  }
  return "?";
}

Expr* Module::newExpr(Expr::Kind K, Type Ty, SourceLoc Loc) {
  Expr& E = Exprs.emplace_back();
  E.K = K;
  E.Ty = Ty;
  E.Loc = Loc;
  return &E;
}

Stmt* Module::newStmt(Stmt::Kind K, SourceLoc Loc) {
  Stmt& S = Stmts.emplace_back();
  S.K = K;
  S.Loc = Loc;
  return &S;
}

const char* rayQueryOpName(RayQueryOp Op) {
  switch (Op) {
  case RayQueryOp::Initialize:
    return "initialize";
  case RayQueryOp::Proceed:
    return "proceed";
  case RayQueryOp::Confirm:
    return "confirm";
  case RayQueryOp::Generate:
    return "generateIntersection";
  case RayQueryOp::Terminate:
    return "terminate";
  case RayQueryOp::Type:
    return "type";
  case RayQueryOp::T:
    return "t";
  case RayQueryOp::U:
    return "u";
  case RayQueryOp::V:
    return "v";
  case RayQueryOp::PrimitiveIndex:
    return "primitiveIndex";
  case RayQueryOp::FrontFace:
    return "frontFace";
  }
  return "?";
}

unsigned rayQueryOperandCount(RayQueryOp Op) {
  return Op == RayQueryOp::Initialize ? 10 : Op == RayQueryOp::Generate ? 1 : 0;
}

Type rayQueryResultType(RayQueryOp Op) {
  switch (Op) {
  case RayQueryOp::Proceed:
  case RayQueryOp::FrontFace:
    return Type::scalar(ScalarType::Bool);
  case RayQueryOp::Type:
  case RayQueryOp::PrimitiveIndex:
    return Type::scalar(ScalarType::I32);
  case RayQueryOp::T:
  case RayQueryOp::U:
  case RayQueryOp::V:
    return Type::scalar(ScalarType::F32);
  default:
    return Type::voidTy();
  }
}

const char* hostOpName(HostOp Op) {
  switch (Op) {
  case HostOp::ArrayNew:
    return "array.new";
  case HostOp::ArrayLength:
    return "array.length";
  case HostOp::BufferNew:
    return "buffer.new";
  case HostOp::BufferUpload:
    return "buffer.upload";
  case HostOp::BufferDownload:
    return "buffer.download";
  case HostOp::BufferLength:
    return "buffer.length";
  case HostOp::StreamCurrent:
    return "stream.current";
  case HostOp::StreamNew:
    return "stream.new";
  case HostOp::StreamSync:
    return "stream.sync";
  case HostOp::StreamRecord:
    return "stream.record";
  case HostOp::StreamWait:
    return "stream.wait";
  case HostOp::EventSync:
    return "event.sync";
  case HostOp::Launch:
    return "launch";
  case HostOp::Supports:
    return "supports";
  case HostOp::Print:
    return "print";
  case HostOp::PrintFormatted:
    return "printf";
  case HostOp::PrintNewline:
    return "println";
  case HostOp::Exit:
    return "exit";
  case HostOp::PrintCaught:
    return "print.caught";
  case HostOp::ArgCount:
    return "args.length";
  case HostOp::ArgAt:
    return "args.at";
  case HostOp::ParseInt:
    return "parse.int";
  case HostOp::ParseFloat:
    return "parse.float";
  case HostOp::StringLength:
    return "string.length";
  case HostOp::StringEquals:
    return "string.equals";
  case HostOp::AccelNew:
    return "accel.new";
  }
  return "?";
}

int hostOperandCount(HostOp Op) {
  switch (Op) {
  case HostOp::StreamCurrent:
  case HostOp::StreamNew:
  case HostOp::Supports:
  case HostOp::PrintNewline:
  case HostOp::PrintCaught:
  case HostOp::ArgCount:
    return 0;
  case HostOp::ArgAt:
  case HostOp::ParseInt:
  case HostOp::ParseFloat:
  case HostOp::StringLength:
    return 1;
  case HostOp::StringEquals:
  case HostOp::AccelNew:
    return 2;
  case HostOp::ArrayNew:
  case HostOp::ArrayLength:
  case HostOp::BufferNew:
  case HostOp::BufferLength:
  case HostOp::StreamSync:
  case HostOp::StreamRecord:
  case HostOp::EventSync:
  case HostOp::Print:
  case HostOp::PrintFormatted:
  case HostOp::Exit:
    return 1;
  case HostOp::StreamWait:
    return 2;
  case HostOp::BufferUpload:
  case HostOp::BufferDownload:
  case HostOp::Launch:
    return -1;
  }
  return -1;
}

const Function* Module::findFunction(const std::string& Name) const {
  for (const auto& F : Functions)
    if (F->Name == Name)
      return F.get();
  return nullptr;
}

const char* unaryOpName(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Neg:
    return "neg";
  case UnaryOp::Not:
    return "not";
  case UnaryOp::BitNot:
    return "bitnot";
  }
  return "?";
}

const char* binaryOpName(BinaryOp Op) {
  static const char* Names[] = {"add",  "sub", "mul", "div",  "rem", "shl", "shr",
                                "ushr", "and", "or",  "xor",  "eq",  "ne",  "lt",
                                "le",   "gt",  "ge",  "land", "lor"};
  return Names[static_cast<unsigned>(Op)];
}

const char* intrinsicName(IntrinsicOp Op) {
  static const char* Names[] = {"local_id",
                                "global_id",
                                "group_id",
                                "group_dim",
                                "grid_dim",
                                "global_size",
                                "sqrt",
                                "rsqrt",
                                "exp",
                                "log",
                                "pow",
                                "sin",
                                "cos",
                                "tanh",
                                "abs",
                                "min",
                                "max",
                                "floor",
                                "ceil",
                                "fma",
                                "buffer_length",
                                "div_trunc",
                                "rem_trunc",
                                "shift_left",
                                "shift_right",
                                "ftoi_unchecked",
                                "bitcast",
                                "min_num",
                                "max_num",
                                "mma_sync",
                                "ldmatrix",
                                "async_copy",
                                "async_commit",
                                "async_wait",
                                "async_copy_block",
                                "supports",
                                "matrix_fill",
                                "matrix_load",
                                "matrix_store",
                                "matrix_mul_add",
                                "matrix_scale",
                                "matrix_add",
                                "matrix_convert",
                                "wave_barrier",
                                "load_word",
                                "store_words",
                                "tile_dot",
                                "wgmma_ready",
                                "wgmma",
                                "wgmma_fence",
                                "wgmma_commit",
                                "wgmma_wait",
                                "proxy_fence",
                                "mbarrier_init",
                                "tma_load",
                                "mbarrier_arrive",
                                "mbarrier_wait",
                                "prefetch"};
  return Names[static_cast<unsigned>(Op)];
}

const char* atomicOpName(AtomicOp Op) {
  static const char* Names[] = {"add", "sub",  "min",     "max",  "and",  "or",
                                "xor", "xchg", "cmpxchg", "load", "store"};
  return Names[static_cast<unsigned>(Op)];
}

unsigned atomicOperandCount(AtomicOp Op) {
  if (Op == AtomicOp::Load)
    return 2;
  return Op == AtomicOp::CompareExchange ? 4 : 3;
}

bool atomicAllowedOnFloat(AtomicOp Op) {
  return Op == AtomicOp::Add || Op == AtomicOp::Min || Op == AtomicOp::Max ||
         Op == AtomicOp::Exchange || Op == AtomicOp::CompareExchange || Op == AtomicOp::Load ||
         Op == AtomicOp::Store;
}

const char* memoryOrderName(MemoryOrder O) {
  static const char* Names[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
  return Names[static_cast<unsigned>(O)];
}

const char* waveOpName(WaveOp Op) {
  static const char* Names[] = {"width",
                                "laneId",
                                "shuffle",
                                "shuffleUp",
                                "shuffleDown",
                                "shuffleXor",
                                "rotate",
                                "broadcastFirst",
                                "ballot",
                                "all",
                                "any",
                                "reduceSum",
                                "reduceMin",
                                "reduceMax",
                                "reduceAnd",
                                "reduceOr",
                                "reduceXor",
                                "inclusivePrefixSum",
                                "exclusivePrefixSum",
                                "shuffleWord"};
  return Names[static_cast<unsigned>(Op)];
}

bool isValueIntrinsic(IntrinsicOp Op) {
  // The enumeration lists them first, LocalId through MaxNum.
  return static_cast<unsigned>(Op) <= static_cast<unsigned>(IntrinsicOp::MaxNum);
}

unsigned mathOperandCount(IntrinsicOp Op) {
  switch (Op) {
  case IntrinsicOp::Pow:
  case IntrinsicOp::Min:
  case IntrinsicOp::Max:
    return 2;
  case IntrinsicOp::Fma:
    return 3;
  default:
    return 1;
  }
}

unsigned waveOperandCount(WaveOp Op) {
  switch (Op) {
  case WaveOp::Width:
  case WaveOp::LaneId:
    return 0;
  case WaveOp::Shuffle:
  case WaveOp::ShuffleUp:
  case WaveOp::ShuffleDown:
  case WaveOp::ShuffleXor:
  case WaveOp::Rotate:
  case WaveOp::ShuffleWord:
    return 2;
  default:
    return 1;
  }
}

bool waveOperandAllowed(WaveOp Op, Type Operand) {
  if (!Operand.isScalar())
    return false;
  bool Wide = !Operand.isBool() && Operand.bits() >= 32;
  switch (Op) {
  case WaveOp::Width:
  case WaveOp::LaneId:
    return false; // no operand
  case WaveOp::Ballot:
  case WaveOp::All:
  case WaveOp::Any:
    return Operand.isBool();
  case WaveOp::ReduceAnd:
  case WaveOp::ReduceOr:
  case WaveOp::ReduceXor:
    return Wide && Operand.isInteger();
  case WaveOp::ReduceSum:
  case WaveOp::ReduceMin:
  case WaveOp::ReduceMax:
  case WaveOp::InclusiveSum:
  case WaveOp::ExclusiveSum:
    return Wide && (Operand.isInteger() || Operand.isFloat());
  case WaveOp::ShuffleWord:
    return Operand == Type::scalar(ScalarType::U32);
  case WaveOp::Shuffle:
  case WaveOp::ShuffleUp:
  case WaveOp::ShuffleDown:
  case WaveOp::ShuffleXor:
  case WaveOp::Rotate:
  case WaveOp::BroadcastFirst:
    return true;
  }
  return false;
}

Type waveResultType(WaveOp Op, Type Operand) {
  switch (Op) {
  case WaveOp::Width:
  case WaveOp::LaneId:
    return Type::scalar(ScalarType::U32);
  case WaveOp::Ballot:
    return Type::scalar(ScalarType::U64);
  case WaveOp::All:
  case WaveOp::Any:
    return Type::scalar(ScalarType::Bool);
  default:
    return Operand;
  }
}

bool isConvergentWaveOp(const Expr* E) {
  if (E && E->K == Expr::Kind::Tile)
    return true;
  return E && E->K == Expr::Kind::Wave && E->WOp != WaveOp::Width && E->WOp != WaveOp::LaneId;
}

const char* tileOpName(TileOp Op) {
  switch (Op) {
  case TileOp::Fill:
    return "fill";
  case TileOp::Load:
    return "load";
  case TileOp::Store:
    return "store";
  case TileOp::Mac:
    return "mac";
  case TileOp::Scale:
    return "scale";
  case TileOp::Add:
    return "add";
  case TileOp::Convert:
    return "convertFrom";
  }
  return "?";
}

unsigned tileOperandCount(TileOp Op) {
  switch (Op) {
  case TileOp::Load:
  case TileOp::Store:
    return 5;
  case TileOp::Mac:
    return 2;
  default:
    return 1;
  }
}

MmaInput mmaInputOf(ScalarType Elem) {
  switch (Elem) {
  case ScalarType::BF16:
    return MmaInput::BF16;
  case ScalarType::I8:
    return MmaInput::S8;
  case ScalarType::U8:
    return MmaInput::U8;
  case ScalarType::F32:
    return MmaInput::F32;
  default:
    return MmaInput::F16;
  }
}

const char* mmaShapeName(MmaInput In) {
  static const char* Names[] = {"m16n8k16.f16", "m16n8k16.bf16", "m16n8k32.s8", "m16n8k32.u8",
                                "f32"};
  return Names[unsigned(In)];
}

bool tileMacTypesAllowed(ScalarType In, ScalarType Acc) {
  switch (In) {
  case ScalarType::F16:
    return Acc == ScalarType::F32 || Acc == ScalarType::F16;
  case ScalarType::BF16: // no bfloat16 accumulator: too few bits to sum a K-loop
    return Acc == ScalarType::F32;
  case ScalarType::F32:
    return Acc == ScalarType::F32;
  case ScalarType::I8:
  case ScalarType::U8:
    return Acc == ScalarType::I32;
  default:
    return false;
  }
}

uint32_t maxLoopId(const Stmt* S) {
  if (!S)
    return 0;
  uint32_t Max = S->K == Stmt::Kind::Loop ? S->LoopId : 0;
  for (const Stmt* C : S->Body)
    Max = std::max(Max, maxLoopId(C));
  for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
    Max = std::max(Max, maxLoopId(C));
  return Max;
}

bool availableOn(const Function& F, const std::string& Backend) {
  if (F.Backends.empty())
    return true;
  for (const std::string& B : F.Backends)
    if (B == Backend)
      return true;
  return false;
}

} // namespace cajeta::kir
