// DecisionLog (replay/sim/decision_log.h): the lines reach the file in order with their digest
// as the run id, to a regular file or a pipe; Restart starts the file again; a write error is
// returned by Close, not dropped.
#include "replay/sim/decision_log.h"

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

#include <gtest/gtest.h>

#include "replay/io/content_digest.h"

namespace replay {
namespace {

std::filesystem::path TestPath(const std::string& name) {
  // The build tree, on disk.
  return std::filesystem::current_path() / ("decision_log_test." + name);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Line(int i) {
  return R"({"time":"2026-01-01T00:00:)" + std::to_string(i % 60)
         + R"(Z","type":"Admitted","workload":"ns/w-)" + std::to_string(i) + R"("})";
}

std::string RunIdOf(const std::string& text) {
  ContentDigest digest;
  digest.Update(text);
  return digest.Hex();
}

// Writes lines [from, to) to `log`; returns them as the file should hold them.
std::string WriteLines(DecisionLog& log, int from, int to) {
  std::string text;
  for (int i = from; i < to; ++i) {
    log.Write(Line(i));
    text += Line(i) + "\n";
  }
  return text;
}

TEST(DecisionLog, WritesEveryLineOfARegularFileInOrderWithItsDigest) {
  const std::filesystem::path path = TestPath("regular");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::string expected;
  {
    DecisionLog log(file);
    EXPECT_TRUE(log.restartable());
    expected = WriteLines(log, 0, 80'000);  // about 6 MB: several of the log's 1 MiB flushes
    std::string error;
    ASSERT_TRUE(log.Close(error)) << error;
    EXPECT_EQ(log.lines(), 80'000);
    EXPECT_EQ(log.RunId(), RunIdOf(expected));
  }
  std::fclose(file);
  EXPECT_EQ(ReadFile(path), expected);
  std::filesystem::remove(path);
}

TEST(DecisionLog, RestartStartsTheFileAgain) {
  const std::filesystem::path path = TestPath("restart");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::string expected;
  {
    DecisionLog log(file);
    WriteLines(log, 0, 30'000);
    log.Flush();
    ASSERT_TRUE(log.Restart());
    expected = WriteLines(log, 5, 9);
    std::string error;
    ASSERT_TRUE(log.Close(error)) << error;
    EXPECT_EQ(log.lines(), 4);
    EXPECT_EQ(log.RunId(), RunIdOf(expected));
  }
  std::fclose(file);
  EXPECT_EQ(ReadFile(path), expected);
  std::filesystem::remove(path);
}

TEST(DecisionLog, WritesEveryLineToAPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string received;
  std::thread reader([&] {
    char buffer[65536];
    ssize_t n = 0;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) {
      received.append(buffer, static_cast<size_t>(n));
    }
  });
  std::FILE* file = ::fdopen(fds[1], "wb");
  ASSERT_NE(file, nullptr);
  std::string expected;
  {
    DecisionLog log(file);
    EXPECT_FALSE(log.restartable());
    expected = WriteLines(log, 0, 20'000);
    std::string error;
    EXPECT_TRUE(log.Close(error)) << error;
  }
  std::fclose(file);
  reader.join();
  ::close(fds[0]);
  EXPECT_EQ(received, expected);
}

// A file size limit fails the writes past it (EFBIG), as a full disk would (ENOSPC).
TEST(DecisionLog, CloseReturnsAWriteError) {
  const std::filesystem::path path = TestPath("error");
  std::FILE* file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  struct rlimit saved {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto* const saved_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = saved;
  limit.rlim_cur = rlim_t{256} * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  bool closed = true;
  std::string error;
  {
    DecisionLog log(file);
    WriteLines(log, 0, 40'000);  // about 3 MB
    closed = log.Close(error);
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, saved_handler);
  std::fclose(file);
  EXPECT_FALSE(closed);
  EXPECT_EQ(error, std::generic_category().message(EFBIG));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace replay
