// Acceleration structures through the C and C++ APIs on the default device: the build and its
// getters, the implementation choice, accel arguments at launch, and the manifest's accel flag.
#include "TestProgram.h"

#include "bundle/AccelLayout.h"
#include "bundle/BundleWriter.h"
#include "bundle/ManifestJson.h"
#include "runtime/accel/BvhBuilder.h"

#include <cajeta/xpu.hpp>
#include <gtest/gtest.h>

#include <vector>

namespace cajeta::xpu::test {
namespace {

namespace L = bundle::accel;

/// Two quads of two triangles each, at z = 0 and z = 1, plus two boxes.
struct SmallScene {
  std::vector<float> Vertices = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0,
                                 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
  std::vector<uint32_t> Indices = {0, 1, 2, 1, 3, 2, 4, 5, 6, 5, 7, 6};
  std::vector<float> Boxes = {2, 2, 2, 3, 3, 3, -1, -1, -1, -0.5f, -0.5f, -0.5f};

  cajeta_xpu_accel_desc desc() const {
    cajeta_xpu_accel_desc D{};
    D.vertices = Vertices.data();
    D.vertex_count = Vertices.size() / 3;
    D.indices = Indices.data();
    D.triangle_count = Indices.size() / 3;
    D.aabbs = Boxes.data();
    D.aabb_count = Boxes.size() / 6;
    return D;
  }
};

TEST(AccelApi, BuildsOnTheDefaultDeviceWithItsGetters) {
  EnvGuard Env("CAJETA_GPU_AS_IMPL", nullptr);
  SmallScene Scene;
  cajeta_xpu_accel_desc D = Scene.desc();
  cajeta_xpu_accel* A = nullptr;
  ASSERT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_SUCCESS)
      << cajeta_xpu_last_error();
  EXPECT_EQ(cajeta_xpu_accel_impl(A), CAJETA_XPU_AS_IMPL_SOFTWARE);
  EXPECT_STREQ(cajeta_xpu_as_impl_name(cajeta_xpu_accel_impl(A)), "software");
  EXPECT_EQ(cajeta_xpu_accel_triangle_count(A), 4u);
  EXPECT_EQ(cajeta_xpu_accel_aabb_count(A), 2u);
  EXPECT_EQ(cajeta_xpu_accel_skipped_count(A), 0u);
  cajeta_xpu_device* Default = nullptr;
  ASSERT_EQ(cajeta_xpu_device_default(&Default), CAJETA_XPU_SUCCESS);
  EXPECT_EQ(cajeta_xpu_accel_device(A), Default);
  EXPECT_GE(cajeta_xpu_accel_build_ms(A), 0.0);

  // The buffer holds exactly what the builder makes of the description.
  rt::BvhBuilder::Scene S;
  S.Vertices = Scene.Vertices;
  S.Indices = Scene.Indices;
  S.TriangleCount = 4;
  S.Aabbs = Scene.Boxes;
  std::vector<uint32_t> Want = rt::BvhBuilder::build(S);
  cajeta_xpu_buffer* B = cajeta_xpu_accel_buffer(A);
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(cajeta_xpu_buffer_type(B), CAJETA_XPU_UINT32);
  ASSERT_EQ(cajeta_xpu_buffer_count(B), Want.size());
  EXPECT_EQ(cajeta_xpu_accel_bytes(A), Want.size() * 4);
  EXPECT_EQ(cajeta_xpu_accel_node_count(A), Want[L::HNodeCount]);
  std::vector<uint32_t> Got(Want.size());
  ASSERT_EQ(cajeta_xpu_buffer_read(B, nullptr, Got.data(), Got.size()), CAJETA_XPU_SUCCESS);
  EXPECT_EQ(Got, Want);
  cajeta_xpu_accel_destroy(A);
  cajeta_xpu_accel_destroy(nullptr);
}

TEST(AccelApi, EmptySceneAndFlags) {
  EnvGuard Env("CAJETA_GPU_AS_IMPL", nullptr);
  cajeta_xpu_accel_desc D{};
  cajeta_xpu_accel* A = nullptr;
  ASSERT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_SOFTWARE, &A),
            CAJETA_XPU_SUCCESS)
      << cajeta_xpu_last_error();
  EXPECT_EQ(cajeta_xpu_accel_node_count(A), 0u);
  EXPECT_EQ(cajeta_xpu_accel_bytes(A), L::HeaderWords * 4u);
  cajeta_xpu_accel_destroy(A);

  SmallScene Scene;
  D = Scene.desc();
  D.flags = CAJETA_XPU_ACCEL_NON_OPAQUE_TRIANGLES;
  D.max_leaf_size = 1;
  ASSERT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_SUCCESS);
  EXPECT_EQ(cajeta_xpu_accel_node_count(A), 11u); // six leaves of one
  cajeta_xpu_accel_destroy(A);

  D.flags = 0x80;
  EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "unknown flags 0x80"));
  D.flags = 0;
  D.max_leaf_size = 17;
  EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "max leaf size 17"));
  EXPECT_EQ(cajeta_xpu_accel_build(nullptr, nullptr, CAJETA_XPU_AS_IMPL_AUTO, &A),
            CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "desc must not be null"));
}

TEST(AccelApi, BadIndexAndNanCoordinates) {
  EnvGuard Env("CAJETA_GPU_AS_IMPL", nullptr);
  SmallScene Scene;
  Scene.Indices[7] = 99;
  cajeta_xpu_accel_desc D = Scene.desc();
  cajeta_xpu_accel* A = nullptr;
  EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "triangle 2: index 99 is out of range"));
  EXPECT_EQ(A, nullptr);

  SmallScene Nan;
  Nan.Vertices[0] = std::numeric_limits<float>::quiet_NaN(); // vertex 0: triangle 0 only
  Nan.Boxes[0] = std::numeric_limits<float>::infinity();
  D = Nan.desc();
  ASSERT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_SUCCESS);
  EXPECT_EQ(cajeta_xpu_accel_skipped_count(A), 2u);
  EXPECT_EQ(cajeta_xpu_accel_triangle_count(A), 4u);
  cajeta_xpu_accel_destroy(A);
}

TEST(AccelApi, NativeIsUnavailableWithAMessage) {
  EnvGuard Env("CAJETA_GPU_AS_IMPL", nullptr);
  SmallScene Scene;
  cajeta_xpu_accel_desc D = Scene.desc();
  cajeta_xpu_accel* A = nullptr;
  EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_NATIVE, &A),
            CAJETA_XPU_BACKEND_UNAVAILABLE);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "VK_KHR_ray_query"));
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "software BVH"));
  EXPECT_EQ(A, nullptr);
  EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, cajeta_xpu_as_impl(7), &A), CAJETA_XPU_ERROR);
  EXPECT_STREQ(cajeta_xpu_as_impl_name(cajeta_xpu_as_impl(7)), "");
}

TEST(AccelApi, EnvironmentOverridesTheImpl) {
  SmallScene Scene;
  cajeta_xpu_accel_desc D = Scene.desc();
  cajeta_xpu_accel* A = nullptr;
  {
    EnvGuard Env("CAJETA_GPU_AS_IMPL", "native");
    EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A),
              CAJETA_XPU_BACKEND_UNAVAILABLE);
    EXPECT_TRUE(contains(cajeta_xpu_last_error(), "VK_KHR_ray_query"));
  }
  {
    EnvGuard Env("CAJETA_GPU_AS_IMPL", "software");
    ASSERT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_NATIVE, &A),
              CAJETA_XPU_SUCCESS);
    EXPECT_EQ(cajeta_xpu_accel_impl(A), CAJETA_XPU_AS_IMPL_SOFTWARE);
    cajeta_xpu_accel_destroy(A);
  }
  {
    EnvGuard Env("CAJETA_GPU_AS_IMPL", "hardware");
    EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_ERROR);
    EXPECT_TRUE(contains(cajeta_xpu_last_error(), "CAJETA_GPU_AS_IMPL is 'hardware'"));
    EXPECT_TRUE(contains(cajeta_xpu_last_error(), "'native' and 'software'"));
  }
}

TEST(AccelCpp, BuildMoveAndTypedErrors) {
  EnvGuard Env("CAJETA_GPU_AS_IMPL", nullptr);
  SmallScene Scene;
  AccelerationStructure A = AccelerationStructure::of(
      AccelerationStructureDesc(TriangleMesh{Scene.Vertices, Scene.Indices}).aabbs(Scene.Boxes));
  EXPECT_EQ(A.impl(), AsImpl::Software);
  EXPECT_EQ(asImplName(A.impl()), "software");
  EXPECT_EQ(A.triangleCount(), 4u);
  EXPECT_EQ(A.aabbCount(), 2u);
  EXPECT_GT(A.nodeCount(), 0u);
  EXPECT_GT(A.bytes(), 0u);
  AccelerationStructure B = std::move(A);
  EXPECT_EQ(A.handle(), nullptr);
  EXPECT_EQ(B.triangleCount(), 4u);
  EXPECT_EQ(B.device().name(), defaultDevice().name());
  // Without indices: consecutive vertex triples.
  AccelerationStructure C =
      AccelerationStructure::build(defaultDevice(), TriangleMesh{Scene.Vertices}, AsImpl::Software);
  EXPECT_EQ(C.triangleCount(), 2u);
  EXPECT_THROW(AccelerationStructure::build(TriangleMesh{Scene.Vertices}, AsImpl::Native),
               BackendUnavailable);
  std::vector<uint32_t> Bad = {0, 1, 9};
  std::string M = messageOf<Error>([&] {
    AccelerationStructure::build(TriangleMesh{Scene.Vertices, Bad});
  });
  EXPECT_TRUE(contains(M, "triangle 0: index 9"));
}

/// The test kernels plus K.trace: K.coords' code (TestKernels.c's cj_K_trace) with its buffer
/// declared an acceleration structure.
Program loadAccelProgram() {
  bundle::Program P = makeTestProgram();
  bundle::KernelInfo K;
  for (const bundle::KernelInfo& Each : P.Kernels)
    if (Each.Name == "K.coords")
      K = Each;
  K.Name = "K.trace";
  K.Params[0].Name = "scene";
  K.Params[0].Accel = true;
  K.Targets["cpu-x86_64"].Symbol = "cj_K_trace";
  P.Kernels.push_back(K);
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  return Program::loadMemory(Bytes.data(), Bytes.size());
}

TEST(AccelLaunch, AnAccelParameterTakesOnlyAnAccel) {
  EnvGuard Env("CAJETA_GPU_AS_IMPL", nullptr);
  Program Prog = loadAccelProgram();
  Kernel Trace = Prog.kernel("K.trace");
  Kernel Coords = Prog.kernel("K.coords");
  KernelStream& S = KernelStream::current();
  SmallScene Scene;
  AccelerationStructure A = AccelerationStructure::of(TriangleMesh{Scene.Vertices, Scene.Indices});

  Trace.launch(S, grid(1), block(1))(A);
  S.sync();
  std::vector<uint32_t> Words(A.bytes() / 4);
  ASSERT_EQ(cajeta_xpu_buffer_read(cajeta_xpu_accel_buffer(A.handle()), nullptr, Words.data(),
                                   Words.size()),
            CAJETA_XPU_SUCCESS);
  EXPECT_EQ(Words[0], 0u); // the stand-in kernel ran on the accel's buffer
  EXPECT_EQ(Words[L::HPrimCount], 4u);

  KernelBuffer<uint32_t> Plain(64);
  std::string M = messageOf<LaunchError>([&] { Trace.launch(S, grid(1), block(1))(Plain); });
  EXPECT_TRUE(contains(M, "argument 1 ('scene') expects an AccelerationStructure, got a buffer "
                          "of uint32"));
  M = messageOf<LaunchError>([&] { Trace.launch(S, grid(1), block(1))(7u); });
  EXPECT_TRUE(contains(M, "expects an AccelerationStructure, got a scalar uint32"));
  M = messageOf<LaunchError>([&] { Coords.launch(S, grid(1), block(1))(A); });
  EXPECT_TRUE(contains(M, "argument 1 ('out') expects a buffer of uint32, got an "
                          "AccelerationStructure"));

  // A uint32 buffer dressed up as an accel argument is refused.
  cajeta_xpu_arg Fake{};
  Fake.kind = CAJETA_XPU_ARG_ACCEL;
  Fake.value.buffer = Plain.handle();
  uint32_t One[3] = {1, 1, 1};
  EXPECT_EQ(cajeta_xpu_kernel_launch(Trace.handle(), S.handle(), One, One, &Fake, 1),
            CAJETA_XPU_LAUNCH_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "not the buffer of one"));
  // The accel's own buffer is read-only to the buffer API.
  cajeta_xpu_buffer* Own = cajeta_xpu_accel_buffer(A.handle());
  uint32_t Zero = 0;
  EXPECT_EQ(cajeta_xpu_buffer_write(Own, S.handle(), &Zero, 1), CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "acceleration structure is read-only"));
  EXPECT_EQ(cajeta_xpu_buffer_resize(Own, 4), CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "acceleration structure is read-only"));
  Fake.value.buffer = nullptr;
  EXPECT_EQ(cajeta_xpu_kernel_launch(Trace.handle(), S.handle(), One, One, &Fake, 1),
            CAJETA_XPU_LAUNCH_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "is a null AccelerationStructure"));
  S.sync();
}

TEST(AccelManifest, TheAccelFlagRoundTripsAndIsCheckedOnRead) {
  bundle::Program P = makeTestProgram();
  bundle::KernelInfo& K = P.Kernels[1]; // K.coords: one uint32 buffer
  ASSERT_EQ(K.Name, "K.coords");
  nlohmann::json Old = bundle::manifestToJson(P);
  EXPECT_FALSE(Old["kernels"][1]["params"][0].contains("accel"));
  K.Params[0].Accel = true;
  nlohmann::json J = bundle::manifestToJson(P);
  EXPECT_EQ(J["kernels"][1]["params"][0]["accel"], true);
  bundle::Program Back;
  std::string Error;
  ASSERT_TRUE(bundle::manifestFromJson(J, Back, Error)) << Error;
  EXPECT_TRUE(Back.Kernels[1].Params[0].Accel);
  EXPECT_FALSE(Back.Kernels[0].Params[0].Accel);
  // A manifest without the key (older compilers) still loads.
  Back = {};
  ASSERT_TRUE(bundle::manifestFromJson(Old, Back, Error)) << Error;
  EXPECT_FALSE(Back.Kernels[1].Params[0].Accel);

  nlohmann::json Bad = J;
  Bad["kernels"][0]["params"][0]["accel"] = true; // K.saxpy's float32 buffer
  Back = {};
  EXPECT_FALSE(bundle::manifestFromJson(Bad, Back, Error));
  EXPECT_TRUE(contains(Error, "accel' is true but the parameter is a buffer of float32"));
  Bad = J;
  Bad["kernels"][0]["params"][2]["accel"] = true; // a scalar
  EXPECT_FALSE(bundle::manifestFromJson(Bad, Back, Error));
  EXPECT_TRUE(contains(Error, "not a buffer of uint32"));
  Bad = J;
  Bad["kernels"][1]["params"][0]["accel"] = 1;
  EXPECT_FALSE(bundle::manifestFromJson(Bad, Back, Error));
  EXPECT_TRUE(contains(Error, "must be a boolean"));
}

} // namespace
} // namespace cajeta::xpu::test
