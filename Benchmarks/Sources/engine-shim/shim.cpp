// engine-shim: google-benchmark suites that drive AnimationEngine through its C interface
// (animation_engine.h) beside C++ baselines written here, on the same data in the same run:
//   (a) a scalar, browser-class timing-curve solver: an 11-sample table of x(t), up to 4 Newton
//       steps from the table's guess, bisection in the bracket when Newton stalls;
//   (b) an object-per-animation design with virtual dispatch, in Double, using (a) — how scalar
//       ports of Core Animation evaluate;
//   (c) the same struct-of-arrays data in a plain C++ loop (Float values, Double time, a fixed
//       bisection + Newton solve the compiler can vectorise), built at -O3 -march=native;
//   (d) layers as a host has them: model values, several animations per property (a value and
//       additive ones on top), every presentation value read back into the host's buffers each
//       frame — an object per layer and per animation, composing in add order, beside the engine
//       evaluating and handing its columns over (ae_engine_read_property).
// Before timing anything it checks that every variant agrees with the scalar reference within
// docs/architecture.md's precision table, and exits with status 1 if one does not.
#include "animation_engine.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------------
// Deterministic data (splitmix64), so every run and every variant sees the same workload.
struct Random {
    uint64_t state;
    explicit Random(uint64_t seed) : state(seed) {}
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
    double range(double lo, double hi) { return lo + (hi - lo) * uniform(); }
};

// The curves every workload draws from: the five named ones (semantics §3.1) and three custom.
const double kCurves[8][4] = {
    {0, 0, 1, 1}, {0.42, 0, 1, 1}, {0, 0, 0.58, 1}, {0.42, 0, 0.58, 1}, {0.25, 0.1, 0.25, 1},
    {0.68, -0.55, 0.27, 1.55}, {0.1, 0.7, 0.2, 1}, {0.9, 0.05, 0.95, 0.4},
};

// ---------------------------------------------------------------------------------------------
// (a) Scalar browser-class solver. The cubic Bézier through (0,0), (x1,y1), (x2,y2), (1,1) in
// polynomial form: x(t) = ((ax t + bx) t + cx) t with cx = 3 x1, bx = 3 (x2 − x1) − cx, ax = 1 − cx − bx.
struct ScalarCurve {
    double ax, bx, cx, ay, by, cy;
    double table[11];  // x at t = 0, 0.1, …, 1

    explicit ScalarCurve(const double p[4]) {
        cx = 3 * p[0]; bx = 3 * (p[2] - p[0]) - cx; ax = 1 - cx - bx;
        cy = 3 * p[1]; by = 3 * (p[3] - p[1]) - cy; ay = 1 - cy - by;
        for (int i = 0; i <= 10; i++) table[i] = x(i / 10.0);
    }
    double x(double t) const { return ((ax * t + bx) * t + cx) * t; }
    double y(double t) const { return ((ay * t + by) * t + cy) * t; }
    double dx(double t) const { return (3 * ax * t + 2 * bx) * t + cx; }

    double solve(double u) const {
        if (!(u > 0)) return u != u ? u : 0;
        if (u >= 1) return 1;
        int i = 0;
        while (i < 9 && table[i + 1] <= u) i++;
        double lo = i / 10.0, hi = (i + 1) / 10.0;
        double t = lo + (u - table[i]) / (table[i + 1] - table[i]) * 0.1;
        for (int k = 0; k < 4; k++) {  // Newton from the table's guess
            double e = x(t) - u;
            if (std::fabs(e) < 1e-7) return y(t);
            double d = dx(t);
            if (std::fabs(d) < 1e-6) break;
            double next = t - e / d;
            if (!(next > lo && next < hi)) break;
            t = next;
        }
        for (int k = 0; k < 40; k++) {  // bisection in the bracket
            t = 0.5 * (lo + hi);
            double e = x(t) - u;
            if (std::fabs(e) < 1e-7) break;
            if (e < 0) lo = t; else hi = t;
        }
        return y(t);
    }
};

// (c) The solve as a plain loop body: 12 bisection steps on t, then 2 guarded Newton steps, all
// in Float, no data-dependent loop counts (so -O3 can vectorise it).
inline float soaSolve(float ax, float bx, float cx, float ay, float by, float cy, float u) {
    u = u < 0 ? 0 : (u > 1 ? 1 : u);
    float lo = 0, hi = 1;
    for (int k = 0; k < 12; k++) {
        float t = 0.5f * (lo + hi);
        float x = ((ax * t + bx) * t + cx) * t;
        bool below = x < u;
        lo = below ? t : lo;
        hi = below ? hi : t;
    }
    float t = 0.5f * (lo + hi);
    for (int k = 0; k < 2; k++) {
        float e = ((ax * t + bx) * t + cx) * t - u;
        float d = (3 * ax * t + 2 * bx) * t + cx;
        float next = t - e / d;
        t = next < lo ? lo : (next > hi ? hi : next);  // guarded: clamped to the bracket
    }
    float y = ((ay * t + by) * t + cy) * t;
    return u == 0 ? 0 : (u == 1 ? 1 : y);
}

// ---------------------------------------------------------------------------------------------
// W1: one curve per element, one input each.
struct W1 {
    size_t n;
    std::vector<double> points;  // 4 per element
    std::vector<float> x, engineY, soaY;
    std::vector<ScalarCurve> scalar;
    std::vector<float> ax, bx, cx, ay, by, cy;
    ae_curve_batch *batch = nullptr;

    explicit W1(size_t count) : n(count), points(4 * count), x(count), engineY(count), soaY(count) {
        Random r(42);
        for (size_t i = 0; i < n; i++) {
            const double *c = kCurves[r.next() % 8];
            for (int k = 0; k < 4; k++) points[4 * i + k] = c[k];
            x[i] = float(r.uniform());
            scalar.emplace_back(&points[4 * i]);
            const ScalarCurve &s = scalar.back();
            ax.push_back(float(s.ax)); bx.push_back(float(s.bx)); cx.push_back(float(s.cx));
            ay.push_back(float(s.ay)); by.push_back(float(s.by)); cy.push_back(float(s.cy));
        }
        if (ae_curve_batch_create(points.data(), n, &batch) != AE_OK) {
            std::fprintf(stderr, "ae_curve_batch_create: %s\n", ae_last_error_message());
            std::exit(1);
        }
    }
    ~W1() { ae_curve_batch_destroy(batch); }

    void soa() {
        const size_t count = n;
        for (size_t i = 0; i < count; i++) soaY[i] = soaSolve(ax[i], bx[i], cx[i], ay[i], by[i], cy[i], x[i]);
    }
};

// ---------------------------------------------------------------------------------------------
// The mixed workload: basic animations of widths 1, 2 and 4 with eased curves, and springs, each
// on its own layer, with begin times, repeats and fill both (W2's shape, without keyframes and
// paths, which the baselines do not model).
enum Kind { kScalar = 0, kPoint = 1, kColor = 2, kSpring = 3 };
const int kWidth[4] = {1, 2, 4, 1};

struct Spec {
    Kind kind;
    int curve;
    double begin, duration, repeats;
    double from[4], to[4];
    double omega0, zeta;  // springs: stiffness/mass and damping ratio (≤ 1)
};

// Local progress with fill both and whole repeats (semantics §2): 0 before, 1 after.
inline double progress(double time, double begin, double duration, double repeats, double *localTime) {
    double t = time - begin;
    if (t <= 0) { *localTime = 0; return 0; }
    if (t >= duration * repeats) { *localTime = duration; return 1; }
    double f = std::fmod(t, duration);
    *localTime = f;
    return f / duration;
}

// Semantics §6.2: the fraction of the way from start to end after t seconds (ζ < 1 or = 1).
inline double springResponse(double t, double w0, double zeta) {
    if (zeta < 1) {
        double wd = w0 * std::sqrt(1 - zeta * zeta);
        return 1 - std::exp(-zeta * w0 * t) * (std::cos(wd * t) + (zeta * w0 / wd) * std::sin(wd * t));
    }
    return 1 - std::exp(-w0 * t) * (1 + w0 * t);
}

// (b) Object per animation, virtual dispatch, Double.
struct Animation {
    virtual ~Animation() = default;
    virtual void evaluate(double time, double *out) const = 0;
};

struct BasicObject : Animation {
    Spec s;
    ScalarCurve curve;
    BasicObject(const Spec &spec) : s(spec), curve(kCurves[spec.curve]) {}
    void evaluate(double time, double *out) const override {
        double local;
        double y = curve.solve(progress(time, s.begin, s.duration, s.repeats, &local));
        for (int c = 0; c < kWidth[s.kind]; c++) out[c] = s.from[c] + (s.to[c] - s.from[c]) * y;
    }
};

struct SpringObject : Animation {
    Spec s;
    SpringObject(const Spec &spec) : s(spec) {}
    void evaluate(double time, double *out) const override {
        double local;
        progress(time, s.begin, s.duration, s.repeats, &local);
        out[0] = s.from[0] + (s.to[0] - s.from[0]) * springResponse(local, s.omega0, s.zeta);
    }
};

struct Mix {
    size_t n;
    std::vector<Spec> specs;
    std::vector<std::unique_ptr<Animation>> objects;
    ae_engine *engine = nullptr;
    // (c): struct of arrays, grouped by kind (as the engine groups tracks).
    struct Columns {
        std::vector<double> begin, duration, repeats;
        std::vector<float> ax, bx, cx, ay, by, cy, w0, zeta;
        std::vector<float> from[4], to[4], out[4];
        size_t count = 0;
    } columns[4];
    std::vector<double> objectOut;

    explicit Mix(size_t count) : n(count), objectOut(4 * count) {
        Random r(7);
        if (ae_engine_create(&engine) != AE_OK) { std::fprintf(stderr, "%s\n", ae_last_error_message()); std::exit(1); }
        for (size_t i = 0; i < n; i++) {
            Spec s{};
            uint64_t pick = r.next() % 10;
            s.kind = pick < 4 ? kScalar : pick < 6 ? kPoint : pick < 8 ? kColor : kSpring;
            s.curve = int(r.next() % 8);
            s.begin = r.range(0, 0.5);
            s.duration = r.range(0.5, 2);
            s.repeats = (r.next() % 3 == 0) ? 3 : 1;
            for (int c = 0; c < 4; c++) {
                s.from[c] = s.kind == kColor ? r.uniform() : r.range(-200, 200);
                s.to[c] = s.kind == kColor ? r.uniform() : r.range(-200, 200);
            }
            s.omega0 = std::sqrt(r.range(50, 300));
            s.zeta = r.range(0.2, 1.0);
            specs.push_back(s);
            add(i, s);
        }
    }
    ~Mix() { ae_engine_destroy(engine); }

    void add(size_t i, const Spec &s) {
        ae_timing timing;
        ae_timing_init(&timing);
        timing.begin_time = s.begin;
        timing.duration = s.duration;
        timing.repeat_count = s.repeats;
        timing.fill_mode = AE_FILL_BOTH;
        timing.removed_on_completion = 0;
        uint64_t id = 0, layer = i + 1;
        ae_status status;
        if (s.kind == kSpring) {
            double stiffness = s.omega0 * s.omega0, damping = 2 * s.zeta * s.omega0;  // mass 1
            status = ae_engine_add_spring(engine, layer, "position.x", AE_SCALAR, s.from, s.to, nullptr, 1, 1, stiffness, damping,
                                          0, 0, &timing, &id);
            objects.emplace_back(new SpringObject(s));
        } else {
            timing.has_timing_function = 1;
            for (int k = 0; k < 4; k++) timing.timing_function[k] = kCurves[s.curve][k];
            static const char *paths[3] = {"opacity", "position", "backgroundColor"};
            static const int kinds[3] = {AE_SCALAR, AE_POINT, AE_COLOR};
            status = ae_engine_add_basic(engine, layer, paths[s.kind], kinds[s.kind], s.from, s.to, nullptr, size_t(kWidth[s.kind]),
                                         &timing, &id);
            objects.emplace_back(new BasicObject(s));
        }
        if (status != AE_OK) { std::fprintf(stderr, "add %zu: %s\n", i, ae_last_error_message()); std::exit(1); }
        Columns &c = columns[s.kind];
        c.begin.push_back(s.begin); c.duration.push_back(s.duration); c.repeats.push_back(s.repeats);
        ScalarCurve curve(kCurves[s.curve]);
        c.ax.push_back(float(curve.ax)); c.bx.push_back(float(curve.bx)); c.cx.push_back(float(curve.cx));
        c.ay.push_back(float(curve.ay)); c.by.push_back(float(curve.by)); c.cy.push_back(float(curve.cy));
        c.w0.push_back(float(s.omega0)); c.zeta.push_back(float(s.zeta));
        for (int k = 0; k < 4; k++) { c.from[k].push_back(float(s.from[k])); c.to[k].push_back(float(s.to[k])); c.out[k].push_back(0); }
        c.count++;
    }

    void objectsFrame(double time) {
        for (size_t i = 0; i < n; i++) objects[i]->evaluate(time, &objectOut[4 * i]);
    }

    void soaFrame(double time) {
        for (int kind = 0; kind < 4; kind++) {
            Columns &c = columns[kind];
            const size_t count = c.count;
            const int width = kWidth[kind];
            for (size_t i = 0; i < count; i++) {
                double local;
                float p = float(progress(time, c.begin[i], c.duration[i], c.repeats[i], &local));
                float y;
                if (kind == kSpring) {
                    y = float(springResponse(local, c.w0[i], c.zeta[i]));
                } else {
                    y = soaSolve(c.ax[i], c.bx[i], c.cx[i], c.ay[i], c.by[i], c.cy[i], p);
                }
                for (int k = 0; k < width; k++) c.out[k][i] = c.from[k][i] + (c.to[k][i] - c.from[k][i]) * y;
            }
        }
    }

    void engineFrame(double time, int threads) {
        if (ae_engine_evaluate(engine, time, threads) != AE_OK) {
            std::fprintf(stderr, "ae_engine_evaluate: %s\n", ae_last_error_message());
            std::exit(1);
        }
    }
};

// (d) Layers with model values, stacks of animations per property and a read-back per frame.
// Each layer has opacity, position and backgroundColor; its first animation sets one of them (the
// mix's kinds; springs on opacity), and 30 % of the layers add an additive basic animation on the
// same property. The object design keeps, per layer, its model values and its animations in add
// order, composes each property (the model, then each animation replacing or adding, semantics
// §8.4) and copies the results into the host's per-property buffers; the engine evaluates and the
// host copies the engine's columns into the same kind of buffers.
const int kPropertyWidth[3] = {1, 2, 4};
const char *const kPropertyName[3] = {"opacity", "position", "backgroundColor"};

struct Layers {
    struct Entry {
        std::unique_ptr<Animation> animation;
        Spec spec;
        int property;
        bool additive;
        uint64_t id;   // the engine's animation
    };
    struct LayerObject {
        double model[3][4];
        std::vector<Entry> entries;
    };
    size_t n;
    std::vector<LayerObject> layers;
    ae_engine *engine = nullptr;
    std::vector<double> objectHost[3], engineHost[3];
    std::vector<uint64_t> engineLayers[3];

    explicit Layers(size_t count) : n(count), layers(count) {
        Random r(11);
        if (ae_engine_create(&engine) != AE_OK) { std::fprintf(stderr, "%s\n", ae_last_error_message()); std::exit(1); }
        for (int p = 0; p < 3; p++) {
            objectHost[p].assign(n * size_t(kPropertyWidth[p]), 0);
            engineHost[p].assign(n * size_t(kPropertyWidth[p]), 0);
            engineLayers[p].assign(n, 0);
        }
        for (size_t i = 0; i < n; i++) {
            LayerObject &layer = layers[i];
            uint64_t id = i + 1;
            for (int p = 0; p < 3; p++) {
                for (int c = 0; c < 4; c++) layer.model[p][c] = p == 2 ? r.uniform() : r.range(-100, 100);
                static const int kinds[3] = {AE_SCALAR, AE_POINT, AE_COLOR};
                check(ae_engine_set_model_value(engine, id, kPropertyName[p], kinds[p], layer.model[p], size_t(kPropertyWidth[p])), i);
            }
            Spec s{};
            uint64_t pick = r.next() % 10;
            s.kind = pick < 4 ? kScalar : pick < 6 ? kPoint : pick < 8 ? kColor : kSpring;
            randomTiming(r, s);
            for (int c = 0; c < 4; c++) {
                s.from[c] = s.kind == kColor ? r.uniform() : r.range(-200, 200);
                s.to[c] = s.kind == kColor ? r.uniform() : r.range(-200, 200);
            }
            s.omega0 = std::sqrt(r.range(50, 300));
            s.zeta = r.range(0.2, 1.0);
            int property = s.kind == kSpring ? 0 : int(s.kind);
            add(i, s, property, false);
            if (r.next() % 10 < 3) {
                Spec extra{};
                extra.kind = Kind(property);
                randomTiming(r, extra);
                for (int c = 0; c < 4; c++) extra.to[c] = property == 2 ? r.range(-0.2, 0.2) : r.range(-20, 20);
                add(i, extra, property, true);
            }
        }
    }
    ~Layers() { ae_engine_destroy(engine); }

    static void randomTiming(Random &r, Spec &s) {
        s.curve = int(r.next() % 8);
        s.begin = r.range(0, 0.5);
        s.duration = r.range(0.5, 2);
        s.repeats = (r.next() % 3 == 0) ? 3 : 1;
    }

    static void check(ae_status status, size_t i) {
        if (status != AE_OK) { std::fprintf(stderr, "layer %zu: %s\n", i, ae_last_error_message()); std::exit(1); }
    }

    void add(size_t i, const Spec &s, int property, bool additive) {
        ae_timing timing;
        ae_timing_init(&timing);
        timing.begin_time = s.begin;
        timing.duration = s.duration;
        timing.repeat_count = s.repeats;
        timing.fill_mode = AE_FILL_BOTH;
        timing.removed_on_completion = 0;
        timing.additive = additive ? 1 : 0;
        uint64_t animation = 0;
        Entry entry{nullptr, s, property, additive, 0};
        if (s.kind == kSpring) {
            double stiffness = s.omega0 * s.omega0, damping = 2 * s.zeta * s.omega0;  // mass 1
            check(ae_engine_add_spring(engine, i + 1, kPropertyName[property], AE_SCALAR, s.from, s.to, nullptr, 1, 1, stiffness,
                                       damping, 0, 0, &timing, &animation), i);
            entry.animation.reset(new SpringObject(s));
        } else {
            timing.has_timing_function = 1;
            for (int k = 0; k < 4; k++) timing.timing_function[k] = kCurves[s.curve][k];
            static const int kinds[3] = {AE_SCALAR, AE_POINT, AE_COLOR};
            check(ae_engine_add_basic(engine, i + 1, kPropertyName[property], kinds[property], s.from, s.to, nullptr,
                                      size_t(kPropertyWidth[property]), &timing, &animation), i);
            entry.animation.reset(new BasicObject(s));
        }
        entry.id = animation;
        layers[i].entries.push_back(std::move(entry));
        if (property == 1 && s.kind != kSpring && !additive) moving.push_back({i, layers[i].entries.size() - 1});
    }

    // Retargets: every layer's own position animation (a basic animation of a point) gets new
    // endpoints and a new begin time, as a layout change does. The objects' fields are written;
    // the engine gets one ae_engine_retarget call with the ids and packed values.
    std::vector<std::pair<size_t, size_t>> moving;   // (layer, entry)
    std::vector<uint64_t> movingIds;
    std::vector<double> retargetFrom[2], retargetTo[2];

    void prepareRetargets() {
        Random r(13);
        for (int k = 0; k < 2; k++) {
            retargetFrom[k].clear();
            retargetTo[k].clear();
            for (size_t m = 0; m < moving.size(); m++) {
                for (int c = 0; c < 2; c++) {
                    retargetFrom[k].push_back(r.range(-200, 200));
                    retargetTo[k].push_back(r.range(-200, 200));
                }
            }
        }
        movingIds.clear();
        for (auto [i, e] : moving) movingIds.push_back(layers[i].entries[e].id);
    }

    void retargetObjects(double begin, int round) {
        for (size_t m = 0; m < moving.size(); m++) {
            auto &object = static_cast<BasicObject &>(*layers[moving[m].first].entries[moving[m].second].animation);
            for (int c = 0; c < 2; c++) {
                object.s.from[c] = retargetFrom[round][2 * m + c];
                object.s.to[c] = retargetTo[round][2 * m + c];
            }
            object.s.begin = begin;
        }
    }

    void retargetEngine(double begin, int round) {
        check(ae_engine_retarget(engine, movingIds.data(), movingIds.size(), AE_POINT, retargetFrom[round].data(),
                                 retargetTo[round].data(), 2, begin), 0);
    }

    // The object design's frame: compose every layer's properties, copy them to the host.
    void objectsFrame(double time) {
        for (size_t i = 0; i < n; i++) {
            const LayerObject &layer = layers[i];
            double shown[3][4];
            std::memcpy(shown, layer.model, sizeof shown);
            for (const Entry &e : layer.entries) {
                double value[4];
                e.animation->evaluate(time, value);
                double *row = shown[e.property];
                for (int c = 0; c < kPropertyWidth[e.property]; c++) row[c] = e.additive ? row[c] + value[c] : value[c];
            }
            for (int p = 0; p < 3; p++) {
                const size_t w = size_t(kPropertyWidth[p]);
                std::memcpy(&objectHost[p][w * i], shown[p], w * sizeof(double));
            }
        }
    }

    // The engine's frame: evaluate, then each property's column copied to the host.
    void engineFrame(double time, int threads) {
        if (ae_engine_evaluate(engine, time, threads) != AE_OK) {
            std::fprintf(stderr, "ae_engine_evaluate: %s\n", ae_last_error_message());
            std::exit(1);
        }
        for (int p = 0; p < 3; p++) {
            const double *values = nullptr;
            const uint64_t *ids = nullptr;
            size_t count = 0, components = 0;
            check(ae_engine_read_property(engine, kPropertyName[p], &values, &ids, &count, &components), 0);
            std::memcpy(engineHost[p].data(), values, count * components * sizeof(double));
            std::memcpy(engineLayers[p].data(), ids, count * sizeof(uint64_t));
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Agreement with the precision table before anything is timed.
bool checkW1(W1 &w) {
    ae_curve_batch_evaluate(w.batch, w.x.data(), w.engineY.data(), w.n, 1);
    w.soa();
    double worst[3] = {0, 0, 0};
    for (size_t i = 0; i < w.n; i++) {
        double reference = 0;
        ae_timing_function_value(&w.points[4 * i], w.x[i], &reference);
        double scalar = w.scalar[i].solve(w.x[i]);
        worst[0] = std::fmax(worst[0], std::fabs(w.engineY[i] - reference));
        worst[1] = std::fmax(worst[1], std::fabs(scalar - reference));
        worst[2] = std::fmax(worst[2], std::fabs(w.soaY[i] - reference));
    }
    std::fprintf(stderr, "W1 agreement (max |error| vs the Double reference; contract 2e-5): engine %.2e, scalar (a) %.2e, SoA C++ (c) %.2e\n",
                 worst[0], worst[1], worst[2]);
    return worst[0] <= 2e-5 && worst[1] <= 2e-5 && worst[2] <= 2e-5;
}

bool checkMix(Mix &m) {
    double worst[2] = {0, 0};  // engine, SoA; each as a fraction of its tolerance, against (b)
    size_t index[4] = {0, 0, 0, 0};
    const double times[] = {0.0, 0.3, 0.77, 1.5, 2.9, 7.0};
    for (double time : times) {
        m.objectsFrame(time);
        m.soaFrame(time);
        m.engineFrame(time, 1);
        for (int k = 0; k < 4; k++) index[k] = 0;
        for (size_t i = 0; i < m.n; i++) {
            const Spec &s = m.specs[i];
            static const char *paths[4] = {"opacity", "position", "backgroundColor", "position"};
            double value[4] = {0, 0, 0, 0};
            size_t count = 0;
            if (ae_engine_read_value(m.engine, i + 1, paths[s.kind], value, 4, &count) != AE_OK) {
                std::fprintf(stderr, "read %zu: %s\n", i, ae_last_error_message());
                return false;
            }
            double scale = 0;
            for (int c = 0; c < kWidth[s.kind]; c++) scale = std::fmax(scale, std::fmax(std::fabs(s.from[c]), std::fabs(s.to[c])));
            // docs/architecture.md: basic values 1e-5·(|from| + |to| + 1) (the curve's 2e-5 in y scaled by the
            // range), springs 1e-4·|to − from|.
            double tolerance = 1e-5 * (1 + 2 * scale) + 2e-5 * 2 * scale + (s.kind == kSpring ? 1e-4 * 2 * scale : 0);
            size_t j = index[s.kind]++;
            for (int c = 0; c < kWidth[s.kind]; c++) {
                double expected = m.objectOut[4 * i + c];
                worst[0] = std::fmax(worst[0], std::fabs(value[c] - expected) / tolerance);
                worst[1] = std::fmax(worst[1], std::fabs(m.columns[s.kind].out[c][j] - expected) / tolerance);
            }
        }
    }
    std::fprintf(stderr, "mix agreement with the object baseline (worst error as a fraction of the tolerance): engine %.3f, SoA C++ (c) %.3f\n",
                 worst[0], worst[1]);
    return worst[0] <= 1 && worst[1] <= 1;
}

bool checkLayers(Layers &l) {
    double worst = 0;  // the engine against (d)'s objects, as a fraction of the tolerance
    const double times[] = {0.0, 0.3, 0.77, 1.5, 2.9, 7.0};
    for (double time : times) {
        l.objectsFrame(time);
        l.engineFrame(time, 1);
        for (int p = 0; p < 3; p++) {
            const size_t w = size_t(kPropertyWidth[p]);
            for (size_t row = 0; row < l.n; row++) {
                size_t i = size_t(l.engineLayers[p][row] - 1);
                // docs/architecture.md's table summed over the property's animations (as the mix's check),
                // with the model's magnitude for what is added to it.
                double tolerance = 0;
                for (const Layers::Entry &e : l.layers[i].entries) {
                    if (e.property != p) continue;
                    double scale = 0;
                    for (size_t c = 0; c < w; c++) {
                        scale = std::fmax(scale, std::fmax(std::fabs(e.spec.from[c]), std::fabs(e.spec.to[c])));
                        if (e.additive) scale = std::fmax(scale, std::fabs(l.layers[i].model[p][c]));
                    }
                    tolerance += 1e-5 * (1 + 2 * scale) + 2e-5 * 2 * scale + (e.spec.kind == kSpring ? 1e-4 * 2 * scale : 0);
                }
                if (tolerance == 0) tolerance = 1e-12;   // unanimated: the model, exactly
                for (size_t c = 0; c < w; c++) {
                    worst = std::fmax(worst, std::fabs(l.engineHost[p][w * row + c] - l.objectHost[p][w * i + c]) / tolerance);
                }
            }
        }
    }
    std::fprintf(stderr, "layers agreement with the object baseline (worst error as a fraction of the tolerance): engine %.3f\n", worst);
    return worst <= 1;
}

size_t w1Size = 1 << 20;
std::vector<size_t> mixSizes = {10000, 100000, 1000000};
W1 *w1 = nullptr;
std::vector<Mix *> mixes;
std::vector<Layers *> layerSets;

// ---------------------------------------------------------------------------------------------
// Benchmarks. Counters: items are evaluations (W1) or animated properties (mix).
void W1_Engine(benchmark::State &state) {
    int threads = int(state.range(0));
    for (auto _ : state) {
        ae_curve_batch_evaluate(w1->batch, w1->x.data(), w1->engineY.data(), w1->n, threads);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(w1->n));
}

void W1_ScalarBrowserSolver(benchmark::State &state) {
    for (auto _ : state) {
        for (size_t i = 0; i < w1->n; i++) w1->soaY[i] = float(w1->scalar[i].solve(w1->x[i]));
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(w1->n));
}

void W1_SoAPlainCxx(benchmark::State &state) {
    for (auto _ : state) {
        w1->soa();
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(w1->n));
}

double frameTime(int64_t k) { return 0.1 + 0.016667 * double(k % 120); }

// One timed frame per iteration at the shared frame times, counted as `n` items of `unit`.
template <typename Frame>
void timeFrames(benchmark::State &state, size_t n, const char *unit, Frame frame) {
    int64_t k = 0;
    for (auto _ : state) {
        frame(frameTime(k++));
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
    state.counters[unit] = double(n);
}

void Mix_Engine(benchmark::State &state) {
    Mix &m = *mixes[size_t(state.range(0))];
    int threads = int(state.range(1));
    timeFrames(state, m.n, "properties", [&](double t) { m.engineFrame(t, threads); });
}

void Mix_ObjectPerAnimation(benchmark::State &state) {
    Mix &m = *mixes[size_t(state.range(0))];
    timeFrames(state, m.n, "properties", [&](double t) { m.objectsFrame(t); });
}

void Layers_Engine(benchmark::State &state) {
    Layers &l = *layerSets[size_t(state.range(0))];
    int threads = int(state.range(1));
    timeFrames(state, l.n, "layers", [&](double t) { l.engineFrame(t, threads); });
}

void Layers_ObjectPerAnimation(benchmark::State &state) {
    Layers &l = *layerSets[size_t(state.range(0))];
    timeFrames(state, l.n, "layers", [&](double t) { l.objectsFrame(t); });
}

// Retargeting every layer's position animation: the time of the change alone; the frame after
// it (which delivers the stop events, as a host's next tick does) is not timed.
template <typename Retarget, typename Frame>
void timeRetargets(benchmark::State &state, size_t n, Retarget retarget, Frame frame) {
    int round = 0;
    double t = 0;
    for (auto _ : state) {
        retarget(t, round);
        state.PauseTiming();
        frame(t);
        state.ResumeTiming();
        round ^= 1;
        t += 1.0 / 60;
    }
    state.counters["animations"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

void Retarget_Engine(benchmark::State &state) {
    Layers &l = *layerSets[size_t(state.range(0))];
    timeRetargets(state, l.moving.size(), [&](double t, int round) { l.retargetEngine(t, round); },
                  [&](double t) { l.engineFrame(t, 1); });
}

void Retarget_ObjectPerAnimation(benchmark::State &state) {
    Layers &l = *layerSets[size_t(state.range(0))];
    timeRetargets(state, l.moving.size(), [&](double t, int round) { l.retargetObjects(t, round); },
                  [&](double t) { l.objectsFrame(t); });
}

void Mix_SoAPlainCxx(benchmark::State &state) {
    Mix &m = *mixes[size_t(state.range(0))];
    timeFrames(state, m.n, "properties", [&](double t) { m.soaFrame(t); });
}

}  // namespace

int main(int argc, char **argv) {
    // Our own options first: --w1-size=N, --mix-sizes=a,b,c (smaller for a CI smoke).
    std::vector<char *> rest;
    for (int i = 0; i < argc; i++) {
        std::string a = argv[i];
        if (a.rfind("--w1-size=", 0) == 0) {
            w1Size = std::strtoull(a.c_str() + 10, nullptr, 10);
        } else if (a.rfind("--mix-sizes=", 0) == 0) {
            mixSizes.clear();
            const char *p = a.c_str() + 12;
            while (*p) {
                char *end = nullptr;
                mixSizes.push_back(std::strtoull(p, &end, 10));
                p = *end == ',' ? end + 1 : end;
                if (end == p && *p) break;
            }
        } else {
            rest.push_back(argv[i]);
        }
    }
    if (w1Size < 16 || w1Size > (size_t(1) << 26) || mixSizes.empty()) {
        std::fprintf(stderr, "engine-shim: --w1-size must be in 16…67108864 and --mix-sizes non-empty\n");
        return 2;
    }
    int restCount = int(rest.size());
    benchmark::Initialize(&restCount, rest.data());

    w1 = new W1(w1Size);
    bool ok = checkW1(*w1);
    for (size_t size : mixSizes) {
        mixes.push_back(new Mix(size));
        ok = checkMix(*mixes.back()) && ok;
        layerSets.push_back(new Layers(size));
        ok = checkLayers(*layerSets.back()) && ok;
        // The same retarget on both sides, then the frames compared again.
        Layers &l = *layerSets.back();
        l.prepareRetargets();
        l.retargetObjects(0.4, 1);
        l.retargetEngine(0.4, 1);
        ok = checkLayers(l) && ok;
    }
    if (!ok) {
        std::fprintf(stderr, "engine-shim: a variant disagrees with the reference beyond the precision table; nothing timed\n");
        return 1;
    }

    benchmark::RegisterBenchmark("W1/engine", W1_Engine)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("W1/scalarBrowserSolver", W1_ScalarBrowserSolver)->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("W1/soaPlainCxx", W1_SoAPlainCxx)->UseRealTime()->Unit(benchmark::kMillisecond);
    for (size_t i = 0; i < mixes.size(); i++) {
        std::string n = std::to_string(mixes[i]->n);
        benchmark::RegisterBenchmark(("mix/engine/" + n).c_str(), Mix_Engine)
            ->Args({int64_t(i), 1})->Args({int64_t(i), 2})->UseRealTime()->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("mix/objectPerAnimation/" + n).c_str(), Mix_ObjectPerAnimation)
            ->Arg(int64_t(i))->UseRealTime()->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("mix/soaPlainCxx/" + n).c_str(), Mix_SoAPlainCxx)
            ->Arg(int64_t(i))->UseRealTime()->Unit(benchmark::kMillisecond);
        // (d): the frame a host runs — compose and read every value back.
        benchmark::RegisterBenchmark(("layers/engine/" + n).c_str(), Layers_Engine)
            ->Args({int64_t(i), 1})->Args({int64_t(i), 2})->UseRealTime()->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("layers/objectPerAnimation/" + n).c_str(), Layers_ObjectPerAnimation)
            ->Arg(int64_t(i))->UseRealTime()->Unit(benchmark::kMillisecond);
        // (d) changed: every layer's position animation retargeted at once, 1 thread.
        benchmark::RegisterBenchmark(("retarget/engine/" + n).c_str(), Retarget_Engine)
            ->Arg(int64_t(i))->UseRealTime()->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("retarget/objectPerAnimation/" + n).c_str(), Retarget_ObjectPerAnimation)
            ->Arg(int64_t(i))->UseRealTime()->Unit(benchmark::kMillisecond);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    for (Mix *m : mixes) delete m;
    for (Layers *l : layerSets) delete l;
    delete w1;
    return 0;
}
