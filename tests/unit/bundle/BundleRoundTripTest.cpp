// Tests that a Program written as a bundle reads back identical, in memory and through files.
#include "SampleProgram.h"
#include "bundle/BundleReader.h"
#include "bundle/BundleWriter.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace cajeta::bundle;

namespace {

void expectSameProgram(const Program& A, const Program& B) {
  EXPECT_EQ(A.CompilerVersion, B.CompilerVersion);
  ASSERT_EQ(A.Kernels.size(), B.Kernels.size());
  for (size_t K = 0; K < A.Kernels.size(); ++K) {
    const KernelInfo& KA = A.Kernels[K];
    const KernelInfo& KB = B.Kernels[K];
    SCOPED_TRACE("kernel " + KA.Name);
    EXPECT_EQ(KA.Name, KB.Name);
    EXPECT_EQ(KA.SourceFile, KB.SourceFile);
    EXPECT_EQ(KA.SourceLine, KB.SourceLine);
    ASSERT_EQ(KA.Params.size(), KB.Params.size());
    for (size_t I = 0; I < KA.Params.size(); ++I) {
      EXPECT_EQ(KA.Params[I].Name, KB.Params[I].Name);
      EXPECT_EQ(KA.Params[I].Kind, KB.Params[I].Kind);
      EXPECT_EQ(KA.Params[I].Type, KB.Params[I].Type);
      EXPECT_EQ(KA.Params[I].Mode, KB.Params[I].Mode);
      EXPECT_EQ(KA.Params[I].PodName, KB.Params[I].PodName);
      EXPECT_EQ(KA.Params[I].PodSize, KB.Params[I].PodSize);
      EXPECT_EQ(KA.Params[I].PodAlign, KB.Params[I].PodAlign);
      EXPECT_EQ(KA.Params[I].FunctionTable, KB.Params[I].FunctionTable);
      ASSERT_EQ(KA.Params[I].Fields.size(), KB.Params[I].Fields.size());
      for (size_t F = 0; F < KA.Params[I].Fields.size(); ++F) {
        EXPECT_EQ(KA.Params[I].Fields[F].Name, KB.Params[I].Fields[F].Name);
        EXPECT_EQ(KA.Params[I].Fields[F].Type, KB.Params[I].Fields[F].Type);
        EXPECT_EQ(KA.Params[I].Fields[F].Offset, KB.Params[I].Fields[F].Offset);
      }
    }
    EXPECT_EQ(KA.SharedArrays, KB.SharedArrays);
    EXPECT_EQ(KA.DynamicShared, KB.DynamicShared);
    EXPECT_EQ(KA.Backends, KB.Backends);
    ASSERT_EQ(KA.Targets.size(), KB.Targets.size());
    for (const auto& [Name, TA] : KA.Targets) {
      auto It = KB.Targets.find(Name);
      ASSERT_NE(It, KB.Targets.end()) << Name;
      const TargetManifest& TB = It->second;
      EXPECT_EQ(TA.Symbol, TB.Symbol);
      EXPECT_EQ(TA.CodeHash, TB.CodeHash);
      EXPECT_EQ(TA.Registers, TB.Registers);
      EXPECT_EQ(TA.SpillBytes, TB.SpillBytes);
      EXPECT_EQ(TA.StaticSharedBytes, TB.StaticSharedBytes);
    }
  }
  ASSERT_EQ(A.Payloads.size(), B.Payloads.size());
  for (size_t I = 0; I < A.Payloads.size(); ++I) {
    EXPECT_EQ(A.Payloads[I].Target, B.Payloads[I].Target);
    EXPECT_EQ(A.Payloads[I].Format, B.Payloads[I].Format);
    EXPECT_EQ(A.Payloads[I].Attributes, B.Payloads[I].Attributes);
    EXPECT_EQ(A.Payloads[I].Bytes, B.Payloads[I].Bytes);
  }
}

std::string tempDir() {
  auto Dir =
      std::filesystem::temp_directory_path() / ("cajeta-bundle-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(Dir);
  return Dir.string();
}

} // namespace

TEST(BundleRoundTrip, InMemoryEveryField) {
  Program P = test::sampleProgram();
  std::vector<uint8_t> Bytes = BundleWriter::write(P);
  EXPECT_TRUE(BundleReader::looksLikeBundle(Bytes.data(), Bytes.size()));
  BundleReadResult R = BundleReader::read(Bytes.data(), Bytes.size());
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_TRUE(R.Error.empty());
  expectSameProgram(P, R.Value);
  ASSERT_NE(R.Value.findKernel("K.fill"), nullptr);
  EXPECT_EQ(R.Value.findKernel("K.fill")->Params[2].Type, ScalarType::F16);
  ASSERT_NE(R.Value.findPayload("nvptx-sm_90"), nullptr);
  EXPECT_EQ(R.Value.findPayload("nvptx-sm_90")->Format, "ptx");
  EXPECT_EQ(R.Value.findKernel("K.nothing"), nullptr);
  EXPECT_EQ(R.Value.findPayload("spirv"), nullptr);
}

TEST(BundleRoundTrip, WriteIsDeterministic) {
  Program P = test::sampleProgram();
  EXPECT_EQ(BundleWriter::write(P), BundleWriter::write(P));
}

TEST(BundleRoundTrip, EmptyProgram) {
  Program P;
  std::vector<uint8_t> Bytes = BundleWriter::write(P);
  BundleReadResult R = BundleReader::read(Bytes.data(), Bytes.size());
  ASSERT_TRUE(R.Ok) << R.Error;
  expectSameProgram(P, R.Value);
}

TEST(BundleRoundTrip, EmptyPayloadBytes) {
  Program P = test::sampleProgram();
  P.Payloads[0].Bytes.clear();
  std::vector<uint8_t> Bytes = BundleWriter::write(P);
  BundleReadResult R = BundleReader::read(Bytes.data(), Bytes.size());
  ASSERT_TRUE(R.Ok) << R.Error;
  expectSameProgram(P, R.Value);
}

TEST(BundleRoundTrip, ThroughFile) {
  std::string Path = tempDir() + "/round-trip.cjx";
  Program P = test::sampleProgram();
  std::string Error;
  ASSERT_TRUE(BundleWriter::writeFile(P, Path, Error)) << Error;
  // Overwriting an existing bundle goes through the same atomic rename.
  ASSERT_TRUE(BundleWriter::writeFile(P, Path, Error)) << Error;
  BundleReadResult R = BundleReader::readFile(Path);
  ASSERT_TRUE(R.Ok) << R.Error;
  expectSameProgram(P, R.Value);
  // Nothing but the bundle is left in the directory (no temporary file).
  size_t Entries = 0;
  for ([[maybe_unused]] const auto& E :
       std::filesystem::directory_iterator(std::filesystem::path(Path).parent_path()))
    ++Entries;
  EXPECT_EQ(Entries, 1u);
  std::filesystem::remove_all(std::filesystem::path(Path).parent_path());
}

TEST(BundleRoundTrip, WriteFileIntoMissingDirectoryNamesThePath) {
  std::string Path = "/nonexistent-cajeta-dir/sub/out.cjx";
  std::string Error;
  EXPECT_FALSE(BundleWriter::writeFile(test::sampleProgram(), Path, Error));
  EXPECT_NE(Error.find(Path), std::string::npos) << Error;
}

TEST(BundleRoundTrip, AProgramTheReaderWouldRefuseIsNeverWritten) {
  Program P = test::sampleProgram();
  std::vector<uint8_t> Bytes;
  std::string Error;
  ASSERT_TRUE(BundleWriter::writeChecked(P, Bytes, Error)) << Error;
  EXPECT_EQ(Bytes, BundleWriter::write(P));
  // A POD parameter of size 0: the manifest validator refuses it, so the writer does too.
  ASSERT_FALSE(P.Kernels.empty());
  ParamInfo Bad;
  Bad.Name = "p";
  Bad.Kind = ParamKind::Pod;
  Bad.PodName = "P";
  Bad.PodSize = 0;
  P.Kernels[0].Params.push_back(Bad);
  EXPECT_FALSE(BundleWriter::writeChecked(P, Bytes, Error));
  EXPECT_NE(Error.find("internal error: the bundle written does not read back"), std::string::npos)
      << Error;
  std::string Path = testing::TempDir() + "cajeta_refused.cjx";
  std::remove(Path.c_str());
  EXPECT_FALSE(BundleWriter::writeFile(P, Path, Error));
  EXPECT_NE(Error.find("podSize"), std::string::npos) << Error;
  std::ifstream Probe(Path);
  EXPECT_FALSE(Probe.good()) << "a refused bundle must not be written";
}

TEST(BundleReadFile, MissingPathNamesThePath) {
  std::string Path = "/nonexistent-cajeta-dir/missing.cjx";
  BundleReadResult R = BundleReader::readFile(Path);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find(Path), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("No such file"), std::string::npos) << R.Error;
}

TEST(BundleReadFile, DirectoryIsRejected) {
  std::string Dir = tempDir();
  BundleReadResult R = BundleReader::readFile(Dir);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find(Dir), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("not a regular file"), std::string::npos) << R.Error;
  std::filesystem::remove_all(Dir);
}

TEST(BundleReadFile, AFifoIsRejectedWithoutBlocking) {
  // Opening a FIFO for reading waits for a writer; the reader must refuse it at once.
  std::string Dir = tempDir();
  std::string Path = Dir + "/pipe.cjx";
  ASSERT_EQ(::mkfifo(Path.c_str(), 0600), 0);
  BundleReadResult R = BundleReader::readFile(Path);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("a FIFO, not a regular file"), std::string::npos) << R.Error;
  std::filesystem::remove_all(Dir);
}

TEST(BundleReadFile, BadContentErrorNamesThePath) {
  std::string Path = tempDir() + "/garbage.cjx";
  {
    std::ofstream Out(Path, std::ios::binary);
    Out << "#!/bin/sh\necho not a bundle\n";
  }
  BundleReadResult R = BundleReader::readFile(Path);
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error.rfind(Path + ": ", 0), 0u) << R.Error;
  EXPECT_NE(R.Error.find("not a Cajeta bundle"), std::string::npos) << R.Error;
  std::filesystem::remove_all(std::filesystem::path(Path).parent_path());
}
