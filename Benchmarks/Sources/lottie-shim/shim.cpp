// lottie-shim: google-benchmark suites for Lottie at scale (issue "Lottie at scale", Deliver 6):
// N instances of one file, each at its own integer frame, one tick = every instance evaluated once.
//   - ours: LottieBatch through the C interface (ae_lottie_*), on 1 and 2 threads; a tick sets
//     every instance's frame (ae_lottie_batch_set_frames) and evaluates (ae_lottie_batch_tick),
//     which evaluates one instance per frame shown and copies it to the others at that frame
//     (with N above a file's frame count, most of them) — rlottie evaluates every instance;
//   - rlottie: one Lottie_Animation per instance, as a player holds them, tick = renderTree
//     (lottie_animation_render_tree: the frame's geometry without rasterising) on each; 1 thread,
//     and 2 threads each taking half of the instances. Each instance parses its own model
//     (rlottie's model cache configured off); "rlottie-shared-model" turns the cache on, so that
//     every instance shares one parsed model, as a player that caches would.
// Instance i shows frame (7·i + tick + 1) mod the frame count: never the frame it showed last,
// so rlottie's same-frame cache never hits. Counters: ns per instance-frame, heap per instance
// (glibc's bytes in use after set-up and a first tick, divided by N: everything the instances
// hold, the shared file included); set-up is timed apart (parse: one file read; set-up: N
// instances made ready). rlottie is loaded with dlopen, so that this builds without it; when it
// is missing its rows are skipped and say so. Agreement of the geometry is tested elsewhere
// (Tests/AnimationLottieTests/RlottieAgreementTests.swift).
//
//   lottie-shim --lottie-files=a.json,b.json --instances=1,100,1000,10000 [google-benchmark flags]
//   lottie-shim --lottie-files= --real-files=x.json,y.json --real-instances=1000
// Real files (players' sample files, kept outside the repository) are read leniently; one that is
// outside L1 even so is skipped with its reason on standard output.
#include "animation_engine.h"

#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------------
// rlottie's C interface, resolved at run time.
struct RLottie {
    using FromData = void *(*)(const char *, const char *, const char *);
    using Destroy = void (*)(void *);
    using RenderTree = const void *(*)(void *, size_t, size_t, size_t);
    using ConfigureCache = void (*)(size_t);
    FromData fromData = nullptr;
    Destroy destroy = nullptr;
    RenderTree renderTree = nullptr;
    ConfigureCache configureCache = nullptr;
    std::string missing;

    RLottie() {
        void *library = nullptr;
        for (const char *name : {"librlottie.so.0-1", "librlottie.so.0", "librlottie.so"}) {
            if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
        }
        if (!library) { missing = "librlottie is not installed (apt-get install -y librlottie-dev)"; return; }
        fromData = FromData(dlsym(library, "lottie_animation_from_data"));
        destroy = Destroy(dlsym(library, "lottie_animation_destroy"));
        renderTree = RenderTree(dlsym(library, "lottie_animation_render_tree"));
        // rlottie::configureModelCacheSize(size_t), which has no C name.
        configureCache = ConfigureCache(dlsym(library, "_ZN7rlottie23configureModelCacheSizeEm"));
        if (!fromData || !destroy || !renderTree || !configureCache) missing = "librlottie lacks lottie_animation_* or configureModelCacheSize";
    }
    bool available() const { return missing.empty(); }
    // Off: every load parses (and the cache is flushed). On: loads of one key share a model.
    void cache(bool on) {
        configureCache(0);
        if (on) configureCache(16);
    }
};
RLottie *rlottie = nullptr;

size_t heapInUse() {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;   // small blocks and mmapped ones
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

struct File {
    std::string path, name, json;
    double inPoint = 0, outPoint = 0;
    size_t frames = 0;
    /// Real files (--real-files) are read leniently: what is purely cosmetic outside L1 (blend
    /// modes, layer effects, dashes) is skipped, as a player would draw them without it.
    int lenient = 0;
};
std::vector<File> files;
std::vector<int64_t> instanceCounts = {1, 100, 1000, 10000};
constexpr size_t kSize = 256;

bool check(ae_status status, const char *what) {
    if (status == AE_OK) return true;
    std::fprintf(stderr, "lottie-shim: %s failed: %s\n", what, ae_last_error_message());
    return false;
}

// ---------------------------------------------------------------------------------------------
// Two threads for rlottie: the caller takes the first half of the instances, a persistent worker
// the second, each tick (a spin barrier: no thread is started per tick).
class Pair {
public:
    template <class F> explicit Pair(F work) : work_(work), thread_([this] { loop(); }) {}
    ~Pair() {
        stop_.store(true);
        epoch_.fetch_add(1);
        thread_.join();
    }
    void run(int tick) {
        tick_ = tick;
        done_.store(false);
        epoch_.fetch_add(1, std::memory_order_release);
        work_(0, tick);
        wait([this] { return done_.load(std::memory_order_acquire); });
    }
private:
    void loop() {
        uint64_t seen = 0;
        while (true) {
            wait([this, seen] { return epoch_.load(std::memory_order_acquire) != seen; });
            seen = epoch_.load();
            if (stop_.load()) return;
            work_(1, tick_);
            done_.store(true, std::memory_order_release);
        }
    }
    // Spins, yielding the core now and then in case the other thread was descheduled.
    template <class C> static void wait(C ready) {
        for (unsigned spins = 1; !ready(); spins++) {
            if (spins % 256 == 0) std::this_thread::yield();
        }
    }
    std::function<void(int, int)> work_;
    std::atomic<uint64_t> epoch_{0};
    std::atomic<bool> done_{false}, stop_{false};
    int tick_ = 0;
    std::thread thread_;
};

// ---------------------------------------------------------------------------------------------
// Fixtures: made once per (file, side, N) and kept while that group of benchmarks runs.
struct Ours {
    ae_lottie *lottie = nullptr;
    ae_lottie_batch *batch = nullptr;
    std::vector<double> frames;
    size_t first = 0;
    double heapPerInstance = 0;
    int threads = 0;
    int nextTick = 0;   // kept across runs of the fixture: no run starts on the frames the last one ended with
    ~Ours() {
        if (batch) ae_lottie_batch_destroy(batch);
        if (lottie) ae_lottie_destroy(lottie);
    }
    void setFrames(const File &f, int tick) {
        for (size_t i = 0; i < frames.size(); i++) frames[i] = f.inPoint + double((7 * i + size_t(tick) + 1) % f.frames);
        ae_lottie_batch_set_frames(batch, first, frames.data(), frames.size());
    }
};

std::unique_ptr<Ours> makeOurs(const File &f, size_t n, int threads) {
    auto o = std::make_unique<Ours>();
    o->threads = threads;
    size_t before = heapInUse();
    if (!check(ae_lottie_create(f.json.data(), f.json.size(), double(kSize), f.lenient, &o->lottie), "ae_lottie_create")
        || !check(ae_lottie_batch_create(threads, &o->batch), "ae_lottie_batch_create")
        || !check(ae_lottie_batch_add(o->batch, o->lottie, n, &o->first), "ae_lottie_batch_add")) return nullptr;
    o->frames.resize(n);
    o->setFrames(f, -1);
    ae_lottie_batch_tick(o->batch);
    o->heapPerInstance = double(heapInUse() - before) / double(n);
    return o;
}

struct Theirs {
    std::vector<void *> animations;
    double heapPerInstance = 0;
    int nextTick = 0;   // kept across runs: a repetition must not start on the frames the last run showed (a cache hit)
    ~Theirs() {
        for (void *a : animations) rlottie->destroy(a);
    }
    void tick(const File &f, size_t from, size_t to, int tick, const void *volatile *sink) {
        for (size_t i = from; i < to; i++) *sink = rlottie->renderTree(animations[i], (7 * i + size_t(tick) + 1) % f.frames, kSize, kSize);
    }
};

std::unique_ptr<Theirs> makeTheirs(const File &f, size_t n, bool sharedModel) {
    auto t = std::make_unique<Theirs>();
    rlottie->cache(sharedModel);
    size_t before = heapInUse();
    for (size_t i = 0; i < n; i++) {
        void *a = rlottie->fromData(f.json.c_str(), f.path.c_str(), "");
        if (!a) { std::fprintf(stderr, "lottie-shim: rlottie cannot load %s\n", f.path.c_str()); return nullptr; }
        t->animations.push_back(a);
    }
    const void *volatile sink = nullptr;
    t->tick(f, 0, n, -1, &sink);   // rlottie builds its render tree lazily: once before measuring
    t->heapPerInstance = double(heapInUse() - before) / double(n);
    return t;
}

// One fixture alive at a time: the runs of one (file, side, N) group follow each other.
std::string fixtureKey;
std::unique_ptr<Ours> ours;
std::unique_ptr<Theirs> theirs;
void release() { ours.reset(); theirs.reset(); fixtureKey.clear(); }

void perInstance(benchmark::State &state, size_t n, double heap) {
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
    state.counters["instances"] = double(n);
    state.counters["ns_per_instance_frame"] =
        benchmark::Counter(double(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.counters["heap_bytes_per_instance"] = heap;
}

void TickOurs(benchmark::State &state, size_t file, size_t n, int threads) {
    const File &f = files[file];
    std::string key = "ours/" + f.path + "/" + std::to_string(n) + "/" + std::to_string(threads);
    if (fixtureKey != key) {
        release();
        ours = makeOurs(f, n, threads);
        if (!ours) { state.SkipWithError("set-up failed"); return; }
        fixtureKey = key;
    }
    for (auto _ : state) {
        ours->setFrames(f, ours->nextTick++);
        ae_lottie_batch_tick(ours->batch);
    }
    perInstance(state, n, ours->heapPerInstance);
}

// A host whose screen changes: every tick 1 % of the instances are removed and as many added (a
// sticker scrolls out, another in), then every instance is set to its frame and evaluated.
void TickOursChurn(benchmark::State &state, size_t file, size_t n) {
    const File &f = files[file];
    std::string key = "churn/" + f.path + "/" + std::to_string(n);
    if (fixtureKey != key) {
        release();
        ours = makeOurs(f, n, 1);
        if (!ours) { state.SkipWithError("set-up failed"); return; }
        fixtureKey = key;
    }
    size_t churn = n / 100, added = 0;
    for (auto _ : state) {
        int tick = ours->nextTick++;
        for (size_t j = 0; j < churn; j++) ae_lottie_batch_remove(ours->batch, (size_t(tick) * 37 + j * 97) % (n - j), nullptr);
        if (churn > 0 && !check(ae_lottie_batch_add(ours->batch, ours->lottie, churn, &added), "ae_lottie_batch_add")) {
            state.SkipWithError("add failed");
            return;
        }
        ours->setFrames(f, tick);
        ae_lottie_batch_tick(ours->batch);
    }
    perInstance(state, n, ours->heapPerInstance);
    state.counters["churn_per_tick"] = double(churn);
}

void TickTheirs(benchmark::State &state, size_t file, size_t n, int threads, bool sharedModel) {
    if (!rlottie->available()) { state.SkipWithError(rlottie->missing.c_str()); return; }
    const File &f = files[file];
    std::string key = std::string(sharedModel ? "shared/" : "rlottie/") + f.path + "/" + std::to_string(n);
    if (fixtureKey != key) {
        release();
        theirs = makeTheirs(f, n, sharedModel);
        if (!theirs) { state.SkipWithError("rlottie cannot load the file"); return; }
        fixtureKey = key;
    }
    const void *volatile sink = nullptr;
    int &tick = theirs->nextTick;
    if (threads == 1) {
        for (auto _ : state) theirs->tick(f, 0, n, tick++, &sink);
    } else {
        Theirs *t = theirs.get();
        size_t half = n / 2;
        Pair pair([t, &f, n, half](int which, int k) {
            const void *volatile local = nullptr;
            if (which == 0) t->tick(f, 0, half, k, &local); else t->tick(f, half, n, k, &local);
        });
        for (auto _ : state) pair.run(tick++);
    }
    perInstance(state, n, theirs->heapPerInstance);
}

// Set-up apart: parse (one file) and making N instances ready, each timed on its own.
void SetupOurs(benchmark::State &state, size_t file, size_t n) {
    release();
    const File &f = files[file];
    double parse = 0, setup = 0;
    for (auto _ : state) {
        auto t0 = std::chrono::steady_clock::now();
        ae_lottie *lottie = nullptr;
        if (!check(ae_lottie_create(f.json.data(), f.json.size(), double(kSize), f.lenient, &lottie), "ae_lottie_create")) {
            state.SkipWithError("parse failed");
            return;
        }
        auto t1 = std::chrono::steady_clock::now();
        ae_lottie_batch *batch = nullptr;
        size_t first = 0;
        ae_lottie_batch_create(1, &batch);
        ae_lottie_batch_add(batch, lottie, n, &first);
        auto t2 = std::chrono::steady_clock::now();
        parse += seconds(t0, t1);
        setup += seconds(t1, t2);
        state.PauseTiming();
        ae_lottie_batch_destroy(batch);
        ae_lottie_destroy(lottie);
        state.ResumeTiming();
    }
    state.counters["parse_ms"] = parse * 1e3 / double(state.iterations());
    state.counters["setup_ms"] = setup * 1e3 / double(state.iterations());
    state.counters["instances"] = double(n);
}

void SetupTheirs(benchmark::State &state, size_t file, size_t n) {
    if (!rlottie->available()) { state.SkipWithError(rlottie->missing.c_str()); return; }
    release();
    const File &f = files[file];
    rlottie->cache(false);
    double parse = 0;
    for (auto _ : state) {
        // rlottie parses each instance's model; its set-up is that parse.
        std::vector<void *> animations;
        auto t0 = std::chrono::steady_clock::now();
        for (size_t i = 0; i < n; i++) animations.push_back(rlottie->fromData(f.json.c_str(), f.path.c_str(), ""));
        parse += seconds(t0, std::chrono::steady_clock::now());
        state.PauseTiming();
        for (void *a : animations) if (a) rlottie->destroy(a);
        state.ResumeTiming();
    }
    state.counters["parse_ms"] = parse * 1e3 / double(state.iterations());
    state.counters["setup_ms"] = 0;
    state.counters["instances"] = double(n);
}

std::vector<std::string> split(const std::string &list) {
    std::vector<std::string> out;
    std::stringstream s(list);
    std::string item;
    while (std::getline(s, item, ',')) if (!item.empty()) out.push_back(item);
    return out;
}

}  // namespace

// Reads `path` into a File; a file AnimationLottie refuses is an error (the generated files), or,
// for real files, skipped with the reason (outside L1 even when read leniently).
bool load(const std::string &path, bool real, File &f, bool &skipped) {
    skipped = false;
    std::ifstream in(path, std::ios::binary);
    if (!in) { std::fprintf(stderr, "lottie-shim: cannot read %s\n", path.c_str()); return false; }
    f.path = path;
    f.lenient = real ? 1 : 0;
    f.json.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    size_t slash = path.find_last_of('/');
    f.name = path.substr(slash == std::string::npos ? 0 : slash + 1);
    if (f.name.size() > 5 && f.name.compare(f.name.size() - 5, 5, ".json") == 0) f.name.resize(f.name.size() - 5);
    ae_lottie *lottie = nullptr;
    double rate = 0, width = 0, height = 0;
    if (ae_lottie_create(f.json.data(), f.json.size(), double(kSize), f.lenient, &lottie) != AE_OK) {
        if (real) {
            std::printf("lottie-shim: skipped %s: %s\n", f.name.c_str(), ae_last_error_message());
            skipped = true;
            return true;
        }
        return check(AE_ERROR_INVALID_ARGUMENT, path.c_str());
    }
    bool ok = check(ae_lottie_info(lottie, &rate, &f.inPoint, &f.outPoint, &width, &height), "ae_lottie_info");
    ae_lottie_destroy(lottie);
    if (!ok) return false;
    double count = f.outPoint - f.inPoint;
    if (!(count >= 1)) { std::fprintf(stderr, "lottie-shim: %s has no frames\n", path.c_str()); return false; }
    f.frames = size_t(count);
    return true;
}

int main(int argc, char **argv) {
    std::vector<char *> rest;
    std::vector<std::string> paths = {"Benchmarks/Lottie/loader-12.json", "Benchmarks/Lottie/logo-48.json"};
    std::vector<std::string> realPaths;
    std::vector<int64_t> realCounts = {1000};
    for (int i = 0; i < argc; i++) {
        std::string a = argv[i];
        if (a.rfind("--lottie-files=", 0) == 0) {
            paths = split(a.substr(15));
        } else if (a.rfind("--real-files=", 0) == 0) {
            realPaths = split(a.substr(13));
        } else if (a.rfind("--instances=", 0) == 0 || a.rfind("--real-instances=", 0) == 0) {
            bool real = a[2] == 'r';
            std::vector<int64_t> &counts = real ? realCounts : instanceCounts;
            counts.clear();
            for (const std::string &item : split(a.substr(a.find('=') + 1))) {
                long long n = std::strtoll(item.c_str(), nullptr, 10);
                if (n < 1 || n > 100000) { std::fprintf(stderr, "lottie-shim: --instances takes counts in 1…100000\n"); return 2; }
                counts.push_back(n);
            }
        } else {
            rest.push_back(argv[i]);
        }
    }
    if ((paths.empty() && realPaths.empty()) || instanceCounts.empty() || realCounts.empty()) {
        std::fprintf(stderr, "lottie-shim: give --lottie-files=a.json,… (or --real-files=…) and --instances=1,100,…\n");
        return 2;
    }
    for (const std::string &path : paths) {
        File f;
        bool skipped = false;
        if (!load(path, false, f, skipped)) return 2;
        files.push_back(f);
    }
    size_t generated = files.size();
    for (const std::string &path : realPaths) {
        File f;
        bool skipped = false;
        if (!load(path, true, f, skipped)) return 2;
        if (!skipped) files.push_back(f);
    }
    rlottie = new RLottie();
    if (!rlottie->available()) std::fprintf(stderr, "lottie-shim: rlottie rows skipped: %s\n", rlottie->missing.c_str());
    int restCount = int(rest.size());
    benchmark::Initialize(&restCount, rest.data());

    // Real files: one tick per instance count, ours on 1 and 2 threads beside rlottie on one
    // (rows "tick/ours-real/NAME/N/threads:T", "tick/rlottie-real/NAME/N/threads:1").
    for (size_t k = generated; k < files.size(); k++) {
        for (int64_t n : realCounts) {
            std::string suffix = files[k].name + "/" + std::to_string(n);
            size_t count = size_t(n);
            for (int threads : {1, 2}) {
                benchmark::RegisterBenchmark(("tick/ours-real/" + suffix + "/threads:" + std::to_string(threads)).c_str(),
                                             [k, count, threads](benchmark::State &s) { TickOurs(s, k, count, threads); })
                    ->UseRealTime()->Unit(benchmark::kMillisecond);
            }
            benchmark::RegisterBenchmark(("tick/rlottie-real/" + suffix + "/threads:1").c_str(),
                                         [k, count](benchmark::State &s) { TickTheirs(s, k, count, 1, false); })
                ->UseRealTime()->Unit(benchmark::kMillisecond);
        }
    }
    for (size_t k = 0; k < generated; k++) {
        const std::string &name = files[k].name;
        for (int64_t n : instanceCounts) {
            std::string suffix = name + "/" + std::to_string(n);
            size_t count = size_t(n);
            for (int threads : {1, 2}) {
                benchmark::RegisterBenchmark(("tick/ours/" + suffix + "/threads:" + std::to_string(threads)).c_str(),
                                             [k, count, threads](benchmark::State &s) { TickOurs(s, k, count, threads); })
                    ->UseRealTime()->Unit(benchmark::kMillisecond);
            }
            if (n >= 100) {
                benchmark::RegisterBenchmark(("tick/ours-churn-1pct/" + suffix + "/threads:1").c_str(),
                                             [k, count](benchmark::State &s) { TickOursChurn(s, k, count); })
                    ->UseRealTime()->Unit(benchmark::kMillisecond);
            }
            for (int threads : {1, 2}) {
                benchmark::RegisterBenchmark(("tick/rlottie/" + suffix + "/threads:" + std::to_string(threads)).c_str(),
                                             [k, count, threads](benchmark::State &s) { TickTheirs(s, k, count, threads, false); })
                    ->UseRealTime()->Unit(benchmark::kMillisecond);
            }
            benchmark::RegisterBenchmark(("tick/rlottie-shared-model/" + suffix + "/threads:1").c_str(),
                                         [k, count](benchmark::State &s) { TickTheirs(s, k, count, 1, true); })
                ->UseRealTime()->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(("setup/ours/" + suffix).c_str(), [k, count](benchmark::State &s) { SetupOurs(s, k, count); })
                ->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(n >= 1000 ? 3 : 20);
            benchmark::RegisterBenchmark(("setup/rlottie/" + suffix).c_str(), [k, count](benchmark::State &s) { SetupTheirs(s, k, count); })
                ->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(n >= 1000 ? 1 : 10);
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    release();
    delete rlottie;
    return 0;
}
