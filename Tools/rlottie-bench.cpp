// rlottie's side of `animation-engine lottie bench`: N instances of one file (each its own
// rlottie::Animation, as a player holds them), one tick = renderTree on every instance, instance i
// at frame (7·i + tick + 1) mod the frame count, never the frame it showed last, so that rlottie's
// same-frame cache never hits. Prints the load time, the best of 30 ticks and the heap in use per
// instance after a first tick (glibc's mallinfo2: small and mmapped blocks).
//
//   c++ -O2 -std=c++17 Tools/rlottie-bench.cpp -lrlottie -o rlottie-bench
//   rlottie-bench FILE 1000
#include <rlottie.h>
#include <rlottiecommon.h>
#include <chrono>
#include <malloc.h>
#include <cstdio>
#include <memory>
#include <cstdlib>
#include <vector>
int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: rlottie-bench FILE INSTANCES\n"); return 2; }
  int n = atoi(argv[2]);
  if (n < 1) { fprintf(stderr, "INSTANCES must be at least 1\n"); return 2; }
  std::vector<std::unique_ptr<rlottie::Animation>> a;
  struct mallinfo2 before = mallinfo2();
  size_t heapBefore = before.uordblks + before.hblkhd;   // glibc: bytes in use, small and mmapped blocks
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; i++) {
    a.push_back(rlottie::Animation::loadFromFile(argv[1], false));
    if (!a.back()) { fprintf(stderr, "rlottie cannot load %s\n", argv[1]); return 2; }
  }
  auto t1 = std::chrono::steady_clock::now();
  // One tick first: rlottie builds its render tree lazily.
  for (int i = 0; i < n; i++) a[i]->renderTree((i * 7) % a[0]->totalFrame(), 256, 256);
  struct mallinfo2 after = mallinfo2();
  double heapPerInstance = (double(after.uordblks + after.hblkhd) - double(heapBefore)) / n;
  size_t frames = a[0]->totalFrame();
  double best = 1e9; volatile size_t sink = 0;
  for (int tick = 0; tick < 30; tick++) {
    auto s = std::chrono::steady_clock::now();
    // Tick t shows frame 7·i + t + 1: never the frame shown just before (the warm-up showed 7·i).
    for (int i = 0; i < n; i++) { auto t = a[i]->renderTree((i * 7 + tick + 1) % frames, 256, 256); sink += (size_t)t; }
    auto e = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(e - s).count(); if (ms < best) best = ms;
  }
  printf("%s: load %d in %.1f ms; best tick %.3f ms (%.0f ns per instance-frame); heap %.0f bytes per instance\n", argv[1], n,
         std::chrono::duration<double, std::milli>(t1 - t0).count(), best, best * 1e6 / n, heapPerInstance);
}
