// Lowers inline ray queries (Kir.h's RayQueryOp) to plain KIR, once for every target: the BVH
// walk, the ray-box and ray-triangle tests and the commit rules are written here and nowhere
// else, over the software BVH of bundle/AccelLayout.h.
//
// Each query local becomes a set of scalar locals (the ray, the walk's position, the candidate
// and the committed intersection). The walk is stackless (Hapala, Davidovic, Wald and Slusallek,
// "Efficient Stack-less BVH Traversal for Ray Tracing", 2011): the state is the current node and
// how it was reached (from its parent, from its sibling, from a child), with parent links and
// adjacent siblings in the buffer, visiting the child on the ray's side of the split axis first.
// It needs no per-work-item array, so every backend runs it as it runs any other loop, and a
// query may live across barriers. Where the function has no barrier or wave op the walk keeps a
// stack instead, in one of two forms the target picks (Form). proceed() resumes
// where the last call stopped: in the middle of a leaf when that leaf produced a candidate.
//
// Triangles use the watertight test of Woop, Benthin and Wald (2013) in float32: a ray through
// a shared edge or vertex hits at least one of the triangles that meet there, with no epsilon;
// a ray parallel to a triangle and a degenerate triangle (det 0) are misses; a hit needs tmin <=
// t < the committed t. Box tests widen the far distance by a few ulps (Ize 2013).
#pragma once

#include "compiler/kir/Kir.h"

#include <string>

namespace cajeta::kir {

class RayQueryLowering {
public:
  /// The walk's form, picked by the target.
  struct Form {
    /// The stack walk tests a node's two children where the node is visited, into the nearer
    /// with the other pushed with its distance (the GPUs'); false: each node tests its own box,
    /// the child on the ray's side of the split axis first (the CPU's).
    bool ChildrenAtParent = false;
    /// A node's and a primitive slot's words are read through the structure's 4-word view
    /// (IntrinsicOp::LoadWord: one 128-bit load per 4 words) instead of word by word, for a
    /// target that loads wide vectors only through such views (SPIR-V).
    bool WordViews = false;
  };
  /// Whether F uses a ray query.
  static bool uses(const Function& F);
  /// Rewrites F (a function of M, or a copy whose nodes live in M): no RayQuery expression
  /// remains (query locals become unused uint32 locals, so local indices keep). False with Error
  /// (naming the source line) when a proceed() is a do-while condition, or a query is used with
  /// two acceleration structures or never initialized. A proceed() on the right of && or || or
  /// in an arm of ?: walks only where it would be evaluated (StatementHoister's branches).
  static bool run(Module& M, Function& F, Form Walk, std::string& Error);
};

} // namespace cajeta::kir
