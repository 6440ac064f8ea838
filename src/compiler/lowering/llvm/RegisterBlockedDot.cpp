// The CPU tile products' register-blocked loop (RegisterBlockedDot.h).
#include "compiler/lowering/llvm/RegisterBlockedDot.h"

#include "compiler/lowering/llvm/CountedLoop.h"

#include <string>
#include <vector>

namespace cajeta::lowering {

void RegisterBlockedDot::emit(llvm::IRBuilder<>& B) const {
  const std::string Prefix = Name;
  // 16 accumulators where N allows (4 rows x 4 vectors): enough independent chains to keep two
  // dot-product pipes busy through their latency.
  const unsigned V = N % (4 * Lanes) == 0 ? 4 : N % (2 * Lanes) == 0 ? 2 : 1;
  CountedLoop Rows(B, (Prefix + ".rows").c_str(), M, RowBlock);
  CountedLoop Cols(B, (Prefix + ".cols").c_str(), N, uint64_t(V) * Lanes);
  auto Row = [&](unsigned R) { return B.CreateAdd(Rows.iv(), B.getInt64(R)); };
  auto Column = [&](unsigned Vec) {
    return B.CreateAdd(Cols.iv(), B.getInt64(uint64_t(Vec) * Lanes));
  };
  std::vector<llvm::Value*> Initial;
  for (unsigned R = 0; R < RowBlock; ++R)
    for (unsigned Vec = 0; Vec < V; ++Vec)
      Initial.push_back(Start(Row(R), Column(Vec)));
  llvm::BasicBlock* Before = B.GetInsertBlock();
  CountedLoop Step(B, (Prefix + ".depth").c_str(), Steps);
  std::vector<llvm::PHINode*> Acc;
  for (llvm::Value* I : Initial) {
    Acc.push_back(B.CreatePHI(I->getType(), 2, Prefix + ".acc"));
    Acc.back()->addIncoming(I, Before);
  }
  std::vector<llvm::Value*> As, Bs;
  for (unsigned R = 0; R < RowBlock; ++R)
    As.push_back(AOperand(Row(R), Step.iv()));
  for (unsigned Vec = 0; Vec < V; ++Vec)
    Bs.push_back(BOperand(Column(Vec), Step.iv()));
  std::vector<llvm::Value*> Next;
  for (unsigned R = 0; R < RowBlock; ++R)
    for (unsigned Vec = 0; Vec < V; ++Vec)
      Next.push_back(Dot(Acc[R * V + Vec], As[R], Bs[Vec]));
  llvm::BasicBlock* Last = B.GetInsertBlock();
  for (size_t I = 0; I < Acc.size(); ++I)
    Acc[I]->addIncoming(Next[I], Last);
  Step.end();
  for (unsigned R = 0; R < RowBlock; ++R)
    for (unsigned Vec = 0; Vec < V; ++Vec)
      Finish(Next[R * V + Vec], Row(R), Column(Vec));
  Cols.end();
  Rows.end();
}

} // namespace cajeta::lowering
