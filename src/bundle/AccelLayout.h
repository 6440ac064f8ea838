// The portable software BVH of an AccelerationStructure, as one buffer of uint32 words: written
// by the runtime's builder (runtime/accel/BvhBuilder) and read by the traversal that
// kir::RayQueryLowering writes into kernels. Both sides use these constants and nothing else,
// so the layout is defined once. Float fields hold float32 bits.
//
//   header  HeaderWords words (HeaderWord)
//   nodes   NodeCount x NodeWords, from word NodeBase (= HeaderWords); node 0 is the root
//   prims   PrimCount x PrimWords, from word PrimBase (= NodeBase + NodeCount x NodeWords), in
//           leaf order
//   parents NodeCount words, from word ParentBase: each node's parent (NoParent for the root)
//
// NodeBase is a multiple of NodeBaseAlign words and PrimBase of PrimBaseAlign, so in a buffer
// aligned to 32 bytes every node starts on 32 bytes and every primitive slot on 16: a walk loads
// them as vectors (version 2 moved the parents behind the primitives for this).
//
// A node (NodeWords): its box min xyz (words 0-2), max xyz (3-5), then Word6 and Word7:
//   inner node: Word6 = the index of its first child, Word7 = the split axis (0, 1, 2). The two
//               children are adjacent and the first has an odd index, so a node's sibling is
//               n + 1 when n is odd and n - 1 when it is even (the stackless walk needs it).
//   leaf:       Word6 = its first primitive slot, Word7 = (count << 2) | LeafTag.
// A primitive slot (PrimWords): a triangle is v0 (words 0-2), v1 (3-5), v2 (6-8), exactly as
// given (the watertight test needs each shared vertex bit for bit the same); an AABB is min (0-2),
// max (3-5) and zeros; word 9 is the primitive's index in the description (triangles and boxes are
// numbered apart), word 10 its kind (PrimTriangle or PrimAabb), word 11 its flags (PrimOpaque).
#pragma once

#include <cstdint>

namespace cajeta::bundle::accel {

constexpr uint32_t Magic = 0x53414A43; // "CJAS"
constexpr uint32_t Version = 2;

enum HeaderWord : uint32_t {
  HMagic = 0,
  HVersion = 1,
  HNodeCount = 2,
  HPrimCount = 3,
  HNodeBase = 4,
  HParentBase = 5,
  HPrimBase = 6,
  HKinds = 7, // bit 0: has triangles, bit 1: has AABBs
};
constexpr uint32_t HeaderWords = 8;

constexpr uint32_t NodeWords = 8;
constexpr uint32_t NodeBaseAlign = 8; // words
constexpr uint32_t PrimBaseAlign = 4; // words
constexpr uint32_t NodeChild = 6;     // Word6
constexpr uint32_t NodeInfo = 7;      // Word7
constexpr uint32_t LeafTag = 3;       // Word7 & 3 == LeafTag: a leaf
constexpr uint32_t NoParent = 0xFFFFFFFFu;

constexpr uint32_t PrimWords = 12;
constexpr uint32_t PrimIndex = 9;
constexpr uint32_t PrimKind = 10;
constexpr uint32_t PrimFlags = 11;
constexpr uint32_t PrimTriangle = 0;
constexpr uint32_t PrimAabb = 1;
constexpr uint32_t PrimOpaque = 1;

static_assert(HeaderWords % NodeBaseAlign == 0 && (NodeWords * 4) % 32 == 0 &&
                  NodeWords % PrimBaseAlign == 0 && PrimWords % PrimBaseAlign == 0,
              "nodes start on 32 bytes and primitive slots on 16");

/// Every node is at most MaxDepth - 1 levels below the root (the builder halves primitives
/// once SAH splits would go deeper), so a walk's stack of MaxDepth entries never overflows.
constexpr uint32_t MaxDepth = 64;

/// The most primitives a leaf holds (Word7's count has 30 bits; builders keep leaves small).
constexpr uint32_t MaxLeafSize = 16;

} // namespace cajeta::bundle::accel
