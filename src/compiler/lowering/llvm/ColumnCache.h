// The transposed blocks of row walks, kept for the next vector of work-items that walks the same
// rows.
//
// In SYRK (`sum += alpha * a[i * m + k] * a[j * m + k]`, j the work-item's x, i its y) every row
// of a workgroup walks the same rows of a (j's): RowTranspose loads and transposes them again for
// each row of the group. The cache keeps, per vector of work-items (a slot), the columns the first
// row of the group transposed, and the same vector of a later row, whose walks have the same
// bases, the same starts lane for lane and as many steps, loads them back: one load per step
// instead of a load and log2(Lanes) shuffles. Slots are taken in the first row until the arena is
// full; the vectors past it run as before (no replacement, so a wide group cannot thrash it). The
// cache is emptied where the loop over the group's rows starts, which runs again after every
// barrier.
//
// Sound without alias analysis. A kept column differs from memory only where the element was
// written after the fill. The fill and the use are by different work-items (other rows of the
// group), with no barrier between them (the cache starts empty after one) and no atomic in the
// function to order them; the using work-item wrote nothing before its walk (checked: nothing
// before the row loop in the work-item's body writes memory). So that write races with the fill's
// read or the use's read, and a read that races with a write reads an unspecified value
// (docs/language.md, "Data races"): the one kept is one such read could have returned.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/IR/IRBuilder.h>

#include <vector>

namespace llvm {
class DominatorTree;
class Loop;
class SCEV;
class ScalarEvolution;
} // namespace llvm

namespace cajeta::lowering {

class ColumnCache {
public:
  /// Vectors of work-items (in a row of the group) whose columns are kept, at most.
  static constexpr unsigned Slots = 64;
  /// Bytes of kept columns, all slots and walks together: on the stack, and within a core's L2.
  static constexpr unsigned Bytes = 512 * 1024;

  /// The loop over the group's rows whose later rows would reuse the columns of the jammed row
  /// loop Row: Row's loop over work-items is directly inside the target's loop over a group's
  /// rows (which holds no barrier); nothing before Row in a work-item's body writes memory; the
  /// function holds no atomic, fence or call that may write memory; and each walk's base and
  /// starts (Bases[w], Starts[w][lane]) are the same in every row. Null where any of this fails.
  static llvm::Loop* rowsLoop(llvm::Loop& Row, const llvm::DominatorTree& DT,
                              llvm::ArrayRef<llvm::Value*> Bases,
                              const std::vector<std::vector<const llvm::SCEV*>>& Starts);

  /// The cache in the function's entry block, emptied in the preheader of Rows, for Walks walks
  /// of Lanes work-items.
  ColumnCache(llvm::Loop& Rows, llvm::ScalarEvolution& SE, unsigned Walks, unsigned Lanes);

  /// Ends B's block with the lookup of the walks starting at Firsts[w] (a vector of Lanes i64,
  /// element offsets from Bases[w]) for VecSteps steps. The vectors of a row come in the same
  /// order in every row, so the n-th of a row looks at the n-th slot only: to Use where that slot
  /// holds these walks, to Fill where the slot is new (claimed and its key written), else to
  /// Plain. hitColumns / claimedColumns: where, in Use or Fill, the slot's columns are.
  void lookup(llvm::IRBuilder<>& B, llvm::ArrayRef<llvm::Value*> Bases,
              llvm::ArrayRef<llvm::Value*> Firsts, llvm::Value* VecSteps, llvm::BasicBlock* Use,
              llvm::BasicBlock* Fill, llvm::BasicBlock* Plain);
  /// Walk W's columns in the slot found (in Use) or claimed (in Fill): column t (step t, a float
  /// per lane) at t * Lanes.
  llvm::Value* hitColumns(llvm::IRBuilder<>& B, unsigned Walk) const {
    return columns(B, Hit, Walk);
  }
  llvm::Value* claimedColumns(llvm::IRBuilder<>& B, unsigned Walk) const {
    return columns(B, Claimed, Walk);
  }

private:
  llvm::Value* columns(llvm::IRBuilder<>& B, llvm::Value* At, unsigned Walk) const;

  unsigned Walks, Lanes;
  llvm::Value* Arena = nullptr;     // Bytes / 4 floats: the slots' columns
  llvm::Value* KeyStarts = nullptr; // [Walks][Slots] <Lanes x i64>
  llvm::Value* KeyBases = nullptr;  // [Walks][Slots] ptr
  llvm::Value* KeySteps = nullptr;  // [Slots] i64
  llvm::Value* KeyAt = nullptr;     // [Slots] i64: where in the arena the slot's columns start
  llvm::Value* Used = nullptr;      // i64: slots taken since the rows' loop started
  llvm::Value* Top = nullptr;       // i64: floats of the arena taken
  llvm::Value* Cursor = nullptr;    // i64: the row's next slot
  llvm::Value* ManyRows = nullptr;  // i1: the rows' loop runs more than once
  llvm::Value* VecSteps = nullptr;  // of the lookup
  llvm::Value* Hit = nullptr;       // in Use: the slot's arena offset
  llvm::Value* Claimed = nullptr;   // in Fill: the same
};

} // namespace cajeta::lowering
