// Exercises the C interface (animation_engine.h) as a C program would: every entry point, the
// values it produces, and its answers to bad input. Prints each failed check; exits 1 if any failed.
#include "animation_engine.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef __linux__
#include <dirent.h>
#endif

static int failures = 0;

#define CHECK(condition, ...)                                              \
    do {                                                                   \
        if (!(condition)) {                                                \
            failures++;                                                    \
            printf("FAILED line %d: %s — ", __LINE__, #condition);         \
            printf(__VA_ARGS__);                                           \
            printf(" (last message: %s)\n", ae_last_error_message());      \
        }                                                                  \
    } while (0)

static int near(double a, double b, double tolerance) { return fabs(a - b) <= tolerance; }

/* The process's threads (Linux: the entries of /proc/self/task); -1 where that cannot be read. */
static int thread_count(void) {
#ifdef __linux__
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) if (entry->d_name[0] != '.') count++;
    closedir(tasks);
    return count;
#else
    return -1;
#endif
}

/* An engine with just enough tracks (8,200 opacity animations; the engine goes parallel from
   8,192) that a frame on several threads runs on its worker threads. */
static ae_engine *busy_engine(void) {
    ae_engine *engine = NULL;
    if (ae_engine_create(&engine) != AE_OK) return NULL;
    ae_timing timing;
    ae_timing_init(&timing);
    timing.duration = 1;
    double from = 0, to = 1;
    for (uint64_t layer = 1; layer <= 8200; layer++) {
        uint64_t id = 0;
        if (ae_engine_add_basic(engine, layer, "opacity", AE_SCALAR, &from, &to, NULL, 1, &timing, &id) != AE_OK) return NULL;
    }
    return engine;
}

/* Every thread an engine starts ends when it is destroyed or its thread count shrinks; a handle
   of a destroyed engine stays refused even when a new engine takes its memory. */
static void check_threads_and_stale_handles(void) {
    int before = thread_count();
    /* A leaking pool leaves at least one thread per cycle, so five cycles show a leak as surely as
       twenty did, and each busy engine costs seconds in a debug build. */
    enum { cycles = 5 };
    for (int cycle = 0; cycle < cycles; cycle++) {
        ae_engine *engine = busy_engine();
        CHECK(engine != NULL, "busy engine %d", cycle);
        CHECK(ae_engine_evaluate(engine, 0.5, 2) == AE_OK, "evaluate on 2 threads");
        CHECK(ae_engine_destroy(engine) == AE_OK, "destroy");
    }
    int after_cycles = thread_count();
    CHECK(after_cycles == before, "%d create / evaluate on 2 threads / destroy cycles: %d threads before, %d after", cycles, before, after_cycles);
    ae_engine *engine = busy_engine();
    CHECK(engine != NULL, "busy engine");
    for (int k = 0; k < 50; k++) CHECK(ae_engine_evaluate(engine, 0.01 * k, 1 + k % 8) == AE_OK, "evaluate on %d threads", 1 + k % 8);
    CHECK(ae_engine_evaluate(engine, 1, 1) == AE_OK, "evaluate on 1 thread");
    int after_sweep = thread_count();
    CHECK(after_sweep == before, "thread counts 1…8 then 1: %d threads before, %d after", before, after_sweep);
    CHECK(ae_engine_destroy(engine) == AE_OK, "destroy");

    /* A destroyed engine's handle, while new engines come and go (some at the same address). */
    ae_engine *stale = NULL;
    CHECK(ae_engine_create(&stale) == AE_OK, "create");
    CHECK(ae_engine_destroy(stale) == AE_OK, "destroy");
    for (int k = 0; k < 200; k++) {
        ae_engine *fresh = NULL;
        CHECK(ae_engine_create(&fresh) == AE_OK, "create %d", k);
        CHECK(fresh != stale, "a new engine's handle equals a destroyed one's (try %d)", k);
        CHECK(ae_engine_evaluate(stale, 0, 1) == AE_ERROR_INVALID_ENGINE, "the stale handle is refused (try %d)", k);
        CHECK(ae_engine_destroy(stale) == AE_ERROR_INVALID_ENGINE, "destroying the stale handle is refused (try %d)", k);
        CHECK(ae_engine_destroy(fresh) == AE_OK, "the new engine is still there to destroy (try %d)", k);
    }
}

int main(void) {
    ae_engine *engine = NULL;
    CHECK(ae_engine_create(&engine) == AE_OK && engine != NULL, "create");
    CHECK(strcmp(ae_last_error_message(), "") == 0, "no message after success");

    ae_timing timing;
    ae_timing_init(&timing);
    CHECK(timing.speed == 1 && timing.removed_on_completion == 1 && timing.duration == 0, "defaults");
    CHECK(ae_value_component_count(AE_TRANSFORM) == 16 && ae_value_component_count(AE_COLOR) == 4 &&
          ae_value_component_count(99) == 0, "component counts");

    // A basic animation of a number, a point with an eased curve, a colour by a delta.
    double zero = 0, one = 1;
    uint64_t opacity = 0, position = 0, color = 0, keyframe = 0, path = 0, spring = 0;
    timing.duration = 1;
    CHECK(ae_engine_add_basic(engine, 7, "opacity", AE_SCALAR, &zero, &one, NULL, 1, &timing, &opacity) == AE_OK, "basic");
    double p0[2] = {0, 0}, p1[2] = {100, 50};
    ae_timing eased = timing;
    eased.has_timing_function = 1;
    eased.timing_function[0] = 0.42; eased.timing_function[1] = 0; eased.timing_function[2] = 0.58; eased.timing_function[3] = 1;
    CHECK(ae_engine_add_basic(engine, 7, "position", AE_POINT, p0, p1, NULL, 2, &eased, &position) == AE_OK, "basic point");
    double red[4] = {1, 0, 0, 1}, delta[4] = {-1, 0, 1, 0};
    CHECK(ae_engine_set_model_value(engine, 7, "backgroundColor", AE_COLOR, red, 4) == AE_OK, "model value");
    CHECK(ae_engine_add_basic(engine, 7, "backgroundColor", AE_COLOR, NULL, NULL, delta, 4, &timing, &color) == AE_OK, "by");

    // Keyframes 0 → 1 → 0 at even times; a path line followed at constant speed; a spring.
    double values[3] = {0, 1, 0};
    CHECK(ae_engine_add_keyframe(engine, 8, "opacity", AE_SCALAR, values, 3, NULL, NULL, AE_CALCULATION_LINEAR, &timing, &keyframe) == AE_OK, "keyframe");
    ae_path_element line[2] = {{AE_PATH_MOVE, 0, 0, 0, 0, 0, 0}, {AE_PATH_LINE, 100, 0, 0, 0, 0, 0}};
    ae_timing two = timing;
    two.duration = 2;
    CHECK(ae_engine_add_path(engine, 8, "position", line, 2, AE_CALCULATION_PACED, AE_ROTATION_NONE, &two, &path) == AE_OK, "path");
    ae_timing held;
    ae_timing_init(&held);
    held.fill_mode = AE_FILL_FORWARDS;
    held.removed_on_completion = 0;
    double from = 0, to = 10;
    CHECK(ae_engine_add_spring(engine, 9, "position.x", AE_SCALAR, &from, &to, NULL, 1, 1, 100, 10, 0, 0, &held, &spring) == AE_OK, "spring");

    size_t animations = 0, tracks = 0;
    CHECK(ae_engine_counts(engine, &animations, &tracks) == AE_OK && animations == 6 && tracks == 6, "counts %zu %zu", animations, tracks);

    // Frame at 0.5 s on one thread, then the same frame on all threads: identical values.
    double v[16];
    size_t count = 0;
    CHECK(ae_engine_read_velocity(engine, 7, "opacity", v, 16, &count) == AE_ERROR_INVALID_ARGUMENT, "no velocity before a frame");
    CHECK(ae_engine_evaluate(engine, 0.5, 1) == AE_OK, "evaluate");
    // Velocities, analytic: 1/s for the linear fade; (100, 50) × the curve's slope 1.5/0.87 at its
    // middle for the eased move; 50 px/s along the 100 px path in 2 s.
    CHECK(ae_engine_read_velocity(engine, 7, "opacity", v, 16, &count) == AE_OK && count == 1 && near(v[0], 1, 1e-9),
          "opacity velocity %g", v[0]);
    CHECK(ae_engine_read_velocity(engine, 7, "position", v, 16, &count) == AE_OK && count == 2 &&
          near(v[0], 100 * 1.5 / 0.87, 1e-6) && near(v[1], 50 * 1.5 / 0.87, 1e-6), "position velocity %g %g", v[0], v[1]);
    CHECK(ae_engine_read_velocity(engine, 8, "position", v, 16, &count) == AE_OK && near(v[0], 50, 1e-9) && near(v[1], 0, 1e-9),
          "path velocity %g %g", v[0], v[1]);
    CHECK(ae_engine_read_velocity(engine, 7, "position", v, 1, &count) == AE_ERROR_WRONG_SIZE && count == 2, "short velocity buffer");
    CHECK(ae_engine_read_velocity(engine, 12345, "opacity", v, 16, &count) == AE_ERROR_UNKNOWN_ID, "velocity of an unknown layer");
    CHECK(ae_engine_read_value(engine, 7, "opacity", v, 16, &count) == AE_OK && count == 1 && near(v[0], 0.5, 1e-5), "opacity %g", v[0]);
    CHECK(ae_engine_read_value(engine, 7, "position", v, 16, &count) == AE_OK && count == 2 && near(v[0], 50, 1e-3) && near(v[1], 25, 1e-3),
          "position %g %g", v[0], v[1]);
    CHECK(ae_engine_read_value(engine, 7, "backgroundColor", v, 16, &count) == AE_OK && count == 4 && near(v[0], 0.5, 1e-5) &&
          near(v[2], 0.5, 1e-5) && near(v[3], 1, 1e-6), "color %g %g %g %g", v[0], v[1], v[2], v[3]);
    CHECK(ae_engine_read_value(engine, 8, "opacity", v, 16, &count) == AE_OK && near(v[0], 1, 1e-5), "keyframe %g", v[0]);
    CHECK(ae_engine_read_value(engine, 8, "position", v, 16, &count) == AE_OK && near(v[0], 25, 1e-3) && near(v[1], 0, 1e-3), "path %g", v[0]);
    // Settle queries: animations run, the next one ends within 2 s (the path's duration).
    int settled = -1, has_next = -1, infinite = -1, running = -1;
    double next_time = -1;
    CHECK(ae_engine_settle_state(engine, &settled, &has_next, &next_time, &infinite, &running) == AE_OK && settled == 0 &&
          has_next == 1 && next_time > 0.5 && next_time <= 2 && infinite == 0 && running == 1, "settle state while running: %d %d %g %d %d",
          settled, has_next, next_time, infinite, running);
    CHECK(ae_engine_settle_state(engine, NULL, NULL, NULL, NULL, NULL) == AE_OK, "settle state: every output is optional");
    CHECK(ae_engine_settle_state(NULL, &settled, NULL, NULL, NULL, NULL) == AE_ERROR_INVALID_ENGINE, "settle state: null engine");
    // Bulk, without copying: every layer's opacity; the changed set names column and row.
    const double *values_out = NULL;
    const uint64_t *layers_out = NULL;
    size_t rows = 0, components = 0;
    CHECK(ae_engine_read_property(engine, "opacity", &values_out, &layers_out, &rows, &components) == AE_OK && rows == 2 &&
          components == 1, "bulk opacity: %zu rows of %zu", rows, components);
    for (size_t r = 0; r < rows; r++) {
        double expected = layers_out[r] == 7 ? 0.5 : 1;
        CHECK(near(values_out[r], expected, 1e-5), "bulk row %zu (layer %llu): %g", r, (unsigned long long)layers_out[r], values_out[r]);
    }
    CHECK(ae_engine_read_property(engine, "nothing", &values_out, &layers_out, &rows, &components) == AE_OK && rows == 0 &&
          values_out == NULL, "a property no layer has");
    ae_change changes[32];
    size_t change_count = 0;
    CHECK(ae_engine_read_changes(engine, changes, 32, &change_count) == AE_OK && change_count >= 6 && change_count <= 32,
          "changes %zu", change_count);
    const char *name = NULL;
    size_t property_count = 0;
    CHECK(ae_engine_property_name(engine, changes[0].property, &name, &property_count) == AE_OK && name != NULL &&
          property_count == 3, "property name (opacity, position, backgroundColor): %zu", property_count);
    CHECK(ae_engine_property_name(engine, 999, &name, &property_count) == AE_ERROR_OUT_OF_RANGE, "property index out of range");
    double single[16];
    memcpy(single, v, sizeof v);
    CHECK(ae_engine_evaluate(engine, 0.5, 0) == AE_OK, "evaluate, all threads");
    CHECK(ae_engine_read_value(engine, 8, "position", v, 16, &count) == AE_OK && v[0] == single[0] && v[1] == single[1], "bit-identical");
    // The velocity column: off, no bulk read; on, the same velocities from the kernels, in bulk too.
    const double *velocities = NULL;
    size_t velocity_rows = 0, velocity_components = 0;
    CHECK(ae_engine_read_property_velocity(engine, "position", &velocities, &velocity_rows, &velocity_components) == AE_ERROR_INVALID_ARGUMENT,
          "no bulk velocities while the column is off");
    CHECK(ae_engine_set_velocity_column(engine, 1) == AE_OK && ae_engine_evaluate(engine, 0.5, 1) == AE_OK, "velocity column on");
    CHECK(ae_engine_read_velocity(engine, 7, "position", v, 16, &count) == AE_OK && count == 2 &&
          near(v[0], 100 * 1.5 / 0.87, 1e-3) && near(v[1], 50 * 1.5 / 0.87, 1e-3), "position velocity from the column %g %g", v[0], v[1]);
    CHECK(ae_engine_read_property_velocity(engine, "opacity", &velocities, &velocity_rows, &velocity_components) == AE_OK && velocity_rows >= 1 &&
          velocity_components == 1 && velocities != NULL, "bulk velocities: %zu rows of %zu", velocity_rows, velocity_components);
    const double *opacities = NULL;
    const uint64_t *row_layers = NULL;
    size_t value_rows = 0;
    CHECK(ae_engine_read_property(engine, "opacity", &opacities, &row_layers, &value_rows, NULL) == AE_OK && value_rows == velocity_rows,
          "bulk velocities have the values' rows");
    for (size_t r = 0; r < velocity_rows; r++) {
        if (row_layers[r] == 7) CHECK(near(velocities[r], 1, 1e-5), "layer 7's opacity velocity in bulk %g", velocities[r]);
    }
    CHECK(ae_engine_read_property_velocity(engine, "no such property", &velocities, &velocity_rows, &velocity_components) == AE_OK && velocity_rows == 0 &&
          velocities == NULL, "bulk velocities of an unknown property");
    CHECK(ae_engine_set_velocity_column(engine, 0) == AE_OK, "velocity column off");

    ae_event events[16];
    size_t event_count = 0;
    CHECK(ae_engine_evaluate(engine, 0.25, 1) == AE_OK, "evaluate");
    CHECK(ae_engine_evaluate(engine, 5, 1) == AE_OK, "evaluate past the end");
    CHECK(ae_engine_read_events(engine, events, 16, &event_count) == AE_OK, "events");
    int finished = 0;
    for (size_t i = 0; i < event_count; i++) finished += events[i].kind == AE_EVENT_STOPPED && events[i].outcome == AE_OUTCOME_FINISHED;
    CHECK(finished == 6 && event_count == 6, "all six animations (the spring settles in under 2 s) finish by 5 s: %d of %zu events", finished, event_count);
    CHECK(ae_engine_evaluate(engine, 100, 1) == AE_OK && ae_engine_read_value(engine, 9, "position", v, 16, &count) == AE_OK &&
          near(v[0], 10, 0.05), "the spring settles at its target, held forwards: %g", v[0]);
    CHECK(ae_engine_evaluate(engine, 100, 1) == AE_OK && ae_engine_read_events(engine, events, 16, &event_count) == AE_OK &&
          event_count == 0, "a finish is reported once: %zu events", event_count);
    CHECK(ae_engine_counts(engine, &animations, &tracks) == AE_OK && animations == 1 && tracks == 1,
          "the five removed on completion were reaped when they finished; the held spring stays: %zu %zu", animations, tracks);
    CHECK(ae_engine_remove(engine, opacity) == AE_ERROR_UNKNOWN_ID, "a reaped animation's id is stale");
    CHECK(ae_engine_settle_state(engine, &settled, &has_next, &next_time, &infinite, &running) == AE_OK && settled == 1 &&
          has_next == 0 && next_time == 0 && infinite == 0 && running == 0,
          "settled once everything ended (the spring held forwards): %d %d %g %d %d", settled, has_next, next_time, infinite, running);

    // Bad input: error codes and messages, never a crash.
    CHECK(ae_engine_evaluate(NULL, 0, 1) == AE_ERROR_INVALID_ENGINE, "null engine");
    CHECK(strstr(ae_last_error_message(), "engine is null") != NULL, "message names the engine");
    CHECK(ae_engine_evaluate(engine, NAN, 1) == AE_ERROR_INVALID_ARGUMENT, "NaN time");
    CHECK(ae_engine_evaluate(engine, 0, -1) == AE_ERROR_OUT_OF_RANGE, "negative threads");
    CHECK(ae_engine_remove(engine, 0xdeadbeef) == AE_ERROR_UNKNOWN_ID, "unknown id");
    CHECK(ae_engine_read_value(engine, 12345, "opacity", v, 16, &count) == AE_ERROR_UNKNOWN_ID, "unknown layer");
    CHECK(ae_engine_read_value(engine, 7, "position", v, 1, &count) == AE_ERROR_WRONG_SIZE && count == 2, "short buffer");
    CHECK(ae_engine_add_basic(engine, 7, "opacity", AE_SCALAR, p0, p1, NULL, 2, &timing, &opacity) == AE_ERROR_WRONG_SIZE, "wrong size");
    CHECK(ae_engine_add_basic(engine, 7, "opacity", 42, &zero, &one, NULL, 1, &timing, &opacity) == AE_ERROR_INVALID_ARGUMENT, "kind");
    CHECK(ae_engine_add_basic(engine, 7, NULL, AE_SCALAR, &zero, &one, NULL, 1, &timing, &opacity) == AE_ERROR_NULL_POINTER, "key path");
    CHECK(ae_engine_add_basic(engine, 7, "opacity", AE_SCALAR, &zero, &one, NULL, 1, &timing, NULL) == AE_ERROR_NULL_POINTER, "out");
    ae_timing bad = timing;
    bad.duration = NAN;
    CHECK(ae_engine_add_basic(engine, 7, "opacity", AE_SCALAR, &zero, &one, NULL, 1, &bad, &opacity) == AE_ERROR_INVALID_ARGUMENT, "NaN duration");
    CHECK(strstr(ae_last_error_message(), "duration") != NULL, "message names duration: %s", ae_last_error_message());
    bad = timing;
    bad.fill_mode = 9;
    CHECK(ae_engine_add_basic(engine, 7, "opacity", AE_SCALAR, &zero, &one, NULL, 1, &bad, &opacity) == AE_ERROR_INVALID_ARGUMENT, "fill mode");
    bad = eased;
    bad.timing_function[0] = 1.5;
    CHECK(ae_engine_add_basic(engine, 7, "opacity", AE_SCALAR, &zero, &one, NULL, 1, &bad, &opacity) == AE_ERROR_INVALID_ARGUMENT, "curve x");
    double decreasing[3] = {0, 0.8, 0.5};
    CHECK(ae_engine_add_keyframe(engine, 8, "opacity", AE_SCALAR, values, 3, decreasing, NULL, AE_CALCULATION_LINEAR, &timing, &keyframe) ==
          AE_ERROR_INVALID_ARGUMENT, "decreasing key times");
    CHECK(strstr(ae_last_error_message(), "keyTimes") != NULL, "message names keyTimes: %s", ae_last_error_message());
    ae_path_element nan_point[2] = {{AE_PATH_MOVE, 0, 0, 0, 0, 0, 0}, {AE_PATH_LINE, NAN, 0, 0, 0, 0, 0}};
    CHECK(ae_engine_add_path(engine, 8, "position", nan_point, 2, AE_CALCULATION_PACED, 0, &timing, &path) == AE_ERROR_INVALID_ARGUMENT, "NaN point");
    ae_path_element unknown[1] = {{17, 0, 0, 0, 0, 0, 0}};
    CHECK(ae_engine_add_path(engine, 8, "position", unknown, 1, AE_CALCULATION_PACED, 0, &timing, &path) == AE_ERROR_INVALID_ARGUMENT, "element kind");
    CHECK(ae_engine_add_spring(engine, 9, "position.x", AE_SCALAR, &from, &to, NULL, 1, -1, 100, 10, 0, 0, &held, &spring) ==
          AE_ERROR_INVALID_ARGUMENT, "negative mass");
    double nan_value = NAN, inf_point[2] = {0, INFINITY};
    CHECK(ae_engine_add_basic(engine, 7, "opacity", AE_SCALAR, &nan_value, &one, NULL, 1, &timing, &opacity) == AE_ERROR_INVALID_ARGUMENT,
          "NaN from value");
    CHECK(strstr(ae_last_error_message(), "from[0]") != NULL, "message names from[0]: %s", ae_last_error_message());
    CHECK(ae_engine_set_model_value(engine, 7, "position", AE_POINT, inf_point, 2) == AE_ERROR_INVALID_ARGUMENT, "infinite model value");
    double nan_keyframes[3] = {0, NAN, 1};
    CHECK(ae_engine_add_keyframe(engine, 8, "opacity", AE_SCALAR, nan_keyframes, 3, NULL, NULL, AE_CALCULATION_LINEAR, &timing, &keyframe) ==
          AE_ERROR_INVALID_ARGUMENT, "NaN keyframe value");
    double nan_times[3] = {0, NAN, 1};
    CHECK(ae_engine_add_keyframe(engine, 8, "opacity", AE_SCALAR, values, 3, nan_times, NULL, AE_CALCULATION_LINEAR, &timing, &keyframe) ==
          AE_ERROR_INVALID_ARGUMENT, "NaN key time");
    CHECK(ae_engine_add_spring(engine, 9, "position.x", AE_SCALAR, &from, &to, NULL, 1, 1, NAN, 10, 0, 0, &held, &spring) ==
          AE_ERROR_INVALID_ARGUMENT, "NaN stiffness");
    CHECK(ae_engine_remove(engine, spring) == AE_OK && ae_engine_remove(engine, spring) == AE_ERROR_UNKNOWN_ID, "remove twice");
    CHECK(ae_engine_remove_layer(engine, 7) == AE_OK && ae_engine_remove_layer(engine, 7) == AE_ERROR_UNKNOWN_ID, "remove a layer twice");
    CHECK(ae_engine_read_value(engine, 7, "opacity", v, 16, &count) == AE_ERROR_UNKNOWN_ID, "a removed layer has no values");

    // Retargets in one call: new ids, stop events with outcome replaced, the new targets held;
    // any bad entry changes nothing.
    ae_engine *many = NULL;
    CHECK(ae_engine_create(&many) == AE_OK, "create another engine");
    ae_timing hold;
    ae_timing_init(&hold);
    hold.duration = 2;
    hold.removed_on_completion = 0;
    hold.fill_mode = AE_FILL_FORWARDS;
    uint64_t ids[3], old_ids[3], keyed = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(ae_engine_add_basic(many, 20 + i, "opacity", AE_SCALAR, &zero, &one, NULL, 1, &hold, &ids[i]) == AE_OK, "add %d", i);
        old_ids[i] = ids[i];
    }
    CHECK(ae_engine_add_keyframe(many, 23, "opacity", AE_SCALAR, values, 3, NULL, NULL, AE_CALCULATION_LINEAR, &hold, &keyed) == AE_OK, "keyframe");
    CHECK(ae_engine_evaluate(many, 0.5, 1) == AE_OK && ae_engine_read_events(many, events, 16, &event_count) == AE_OK, "evaluate");
    double targets[3] = {0.2, 0.4, 0.6}, nan_target[3] = {0.2, NAN, 0.6};
    CHECK(ae_engine_retarget(many, ids, 3, AE_SCALAR, NULL, nan_target, 1, 0.5) == AE_ERROR_INVALID_ARGUMENT &&
          strstr(ae_last_error_message(), "to[1]") != NULL, "NaN target: %s", ae_last_error_message());
    CHECK(ae_engine_retarget(many, ids, 3, AE_SCALAR, NULL, targets, 2, 0.5) == AE_ERROR_WRONG_SIZE, "components");
    CHECK(ae_engine_retarget(many, NULL, 3, AE_SCALAR, NULL, targets, 1, 0.5) == AE_ERROR_NULL_POINTER, "null ids");
    uint64_t twice[3] = {ids[0], ids[1], ids[0]};
    CHECK(ae_engine_retarget(many, twice, 3, AE_SCALAR, NULL, targets, 1, 0.5) == AE_ERROR_UNKNOWN_ID &&
          strstr(ae_last_error_message(), "animations[2]") != NULL, "an id named twice: %s", ae_last_error_message());
    uint64_t with_keyframe[3] = {ids[0], keyed, ids[2]};
    CHECK(ae_engine_retarget(many, with_keyframe, 3, AE_SCALAR, NULL, targets, 1, 0.5) == AE_ERROR_INVALID_ARGUMENT &&
          strstr(ae_last_error_message(), "animations[1]") != NULL, "a keyframe animation: %s", ae_last_error_message());
    CHECK(with_keyframe[0] == old_ids[0] && twice[0] == old_ids[0], "ids untouched after an error");
    CHECK(ae_engine_retarget(many, ids, 3, AE_SCALAR, NULL, targets, 1, 0.5) == AE_OK, "retarget: %s", ae_last_error_message());
    CHECK(ids[0] != old_ids[0] && ids[1] != old_ids[1] && ids[2] != old_ids[2], "new ids");
    CHECK(ae_engine_retarget(many, old_ids, 3, AE_SCALAR, NULL, targets, 1, 0.5) == AE_ERROR_UNKNOWN_ID, "old ids are stale");
    CHECK(ae_engine_evaluate(many, 0.6, 1) == AE_OK && ae_engine_read_events(many, events, 16, &event_count) == AE_OK, "evaluate");
    int replaced = 0;
    for (size_t i = 0; i < event_count; i++) replaced += events[i].kind == AE_EVENT_STOPPED && events[i].outcome == AE_OUTCOME_REPLACED;
    CHECK(replaced == 3, "three stops, outcome replaced: %d", replaced);
    CHECK(ae_engine_evaluate(many, 3, 1) == AE_OK, "evaluate at the end");
    for (int i = 0; i < 3; i++) {
        CHECK(ae_engine_read_value(many, 20 + i, "opacity", v, 16, &count) == AE_OK && near(v[0], targets[i], 1e-6),
              "layer %d holds its new target: %g", 20 + i, v[0]);
    }
    CHECK(ae_engine_destroy(many) == AE_OK, "destroy the other engine");

    // Timing curves in bulk, against the scalar reference.
    enum { N = 1000 };
    static double points[4 * N];
    static float x[N], y[N];
    for (int i = 0; i < N; i++) {
        points[4 * i] = (i % 10) / 10.0; points[4 * i + 1] = -0.5 + (i % 7) / 3.0;
        points[4 * i + 2] = 1 - (i % 5) / 5.0; points[4 * i + 3] = 1.5 - (i % 3) / 2.0;
        x[i] = (float)((i * 37 % 1000) / 999.0);
    }
    ae_curve_batch *curves = NULL;
    CHECK(ae_curve_batch_create(points, N, &curves) == AE_OK, "curve batch");
    CHECK(ae_curve_batch_evaluate(curves, x, y, N, 0) == AE_OK, "curves");
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double expected = 0;
        ae_timing_function_value(&points[4 * i], x[i], &expected);
        if (fabs(y[i] - expected) > worst) worst = fabs(y[i] - expected);
    }
    CHECK(worst <= 2e-5, "curve error %g", worst);
    CHECK(ae_curve_batch_evaluate(curves, x, y, N - 1, 1) == AE_ERROR_WRONG_SIZE, "curve count");
    CHECK(ae_curve_batch_destroy(curves) == AE_OK && ae_curve_batch_destroy(curves) == AE_ERROR_UNKNOWN_ID, "destroy batch twice");
    CHECK(ae_curve_batch_evaluate(curves, x, y, N, 1) == AE_ERROR_UNKNOWN_ID, "destroyed batch");

    /* Lottie: a 100 × 50 composition with one 20 × 10 rectangle stroked at 50 %, fitted into 100 × 100. */
    const char *lottie_json =
        "{\"fr\":30,\"ip\":0,\"op\":30,\"w\":100,\"h\":50,\"layers\":[{\"ddd\":0,\"ty\":4,\"ip\":0,\"op\":30,\"ks\":{},\"shapes\":["
        "{\"ty\":\"rc\",\"p\":{\"a\":0,\"k\":[50,25]},\"s\":{\"a\":1,\"k\":[{\"t\":0,\"s\":[20,10],\"o\":{\"x\":[0],\"y\":[0]},\"i\":{\"x\":[1],\"y\":[1]}},{\"t\":10,\"s\":[40,10]}]},\"r\":{\"a\":0,\"k\":0}},"
        "{\"ty\":\"st\",\"c\":{\"a\":0,\"k\":[0,0.5,1]},\"o\":{\"a\":0,\"k\":50},\"w\":{\"a\":0,\"k\":3}}]}]}";
    ae_lottie *lottie = NULL;
    CHECK(ae_lottie_create(lottie_json, strlen(lottie_json), 100, 0, &lottie) == AE_OK && lottie != NULL, "lottie");
    double fr = 0, ip = -1, op = 0, lw = 0, lh = 0;
    CHECK(ae_lottie_info(lottie, &fr, &ip, &op, &lw, &lh) == AE_OK && fr == 30 && ip == 0 && op == 30 && lw == 100 && lh == 50, "lottie info");
    double lottie_frames[2] = {0, 5};
    size_t json_length = 0;
    CHECK(ae_lottie_geometry_json(lottie, lottie_frames, 2, NULL, 0, &json_length) == AE_OK && json_length > 100, "geometry length");
    char json_text[4096];
    CHECK(json_length < sizeof json_text && ae_lottie_geometry_json(lottie, lottie_frames, 2, json_text, sizeof json_text, &json_length) == AE_OK,
          "geometry json");
    CHECK(strncmp(json_text, "{\"frames\":[{\"frame\":0,\"nodes\":[{\"path\":[[\"M\",60,45],", 46) == 0, "geometry text: %.80s", json_text);
    double late_frame = 30;
    CHECK(ae_lottie_geometry_json(lottie, &late_frame, 1, json_text, sizeof json_text, &json_length) == AE_ERROR_INVALID_ARGUMENT,
          "a frame past op");
    const char *outside = "{\"fr\":30,\"ip\":0,\"op\":1,\"w\":1,\"h\":1,\"layers\":[{\"ty\":5,\"ip\":0,\"op\":1,\"ks\":{}}]}";
    ae_lottie *refused = NULL;
    CHECK(ae_lottie_create(outside, strlen(outside), 100, 0, &refused) == AE_ERROR_INVALID_ARGUMENT &&
          strstr(ae_last_error_message(), "text layers at layers[0].ty") != NULL, "outside L1 named");
    CHECK(ae_lottie_create("{", 1, 100, 0, &refused) == AE_ERROR_INVALID_ARGUMENT &&
          strstr(ae_last_error_message(), "line 1") != NULL, "malformed JSON");

    ae_lottie_batch *lottie_batch = NULL;
    CHECK(ae_lottie_batch_create(2, &lottie_batch) == AE_OK, "lottie batch");
    size_t first = 99;
    CHECK(ae_lottie_batch_add(lottie_batch, lottie, 3, &first) == AE_OK && first == 0, "add instances");
    double instance_frames[3] = {0, 5, 20};
    CHECK(ae_lottie_batch_set_frames(lottie_batch, 0, instance_frames, 3) == AE_OK, "set frames");
    CHECK(ae_lottie_batch_set_frames(lottie_batch, 2, instance_frames, 2) == AE_ERROR_OUT_OF_RANGE, "frames past the batch");
    double not_finite = NAN;
    CHECK(ae_lottie_batch_set_frames(lottie_batch, 0, &not_finite, 1) == AE_ERROR_INVALID_ARGUMENT, "NaN frame");
    CHECK(ae_lottie_batch_tick(lottie_batch) == AE_OK, "tick");
    ae_lottie_node lottie_nodes[4];
    size_t node_count = 0;
    CHECK(ae_lottie_batch_read_nodes(lottie_batch, 1, lottie_nodes, 4, &node_count) == AE_OK && node_count == 1, "nodes");
    CHECK(!lottie_nodes[0].is_fill && near(lottie_nodes[0].opacity, 0.5, 1e-12) && near(lottie_nodes[0].stroke_width, 3, 1e-12) &&
          lottie_nodes[0].element_count == 6 && lottie_nodes[0].number_count == 10, "node 0");
    int kinds[6];
    double numbers[10];
    CHECK(ae_lottie_batch_read_path(lottie_batch, 1, 0, kinds, 6, numbers, 10) == AE_OK, "path");
    /* Frame 5: the rectangle is 30 wide (20 → 40 over frames 0…10), its right side at 50 + 15. */
    CHECK(kinds[0] == AE_PATH_MOVE && kinds[1] == AE_PATH_LINE && kinds[5] == AE_PATH_CLOSE && near(numbers[0], 65, 1e-12) &&
          near(numbers[1], 45, 1e-12), "path at frame 5: %g %g", numbers[0], numbers[1]);
    CHECK(ae_lottie_batch_read_path(lottie_batch, 1, 0, kinds, 5, numbers, 10) == AE_ERROR_WRONG_SIZE, "short buffer");
    CHECK(ae_lottie_batch_read_path(lottie_batch, 1, 1, kinds, 6, numbers, 10) == AE_ERROR_OUT_OF_RANGE, "no such node");
    size_t corner_count = 99;
    int clipped = 99;
    double corners[8];
    CHECK(ae_lottie_batch_read_clip(lottie_batch, 1, 0, corners, 4, &corner_count, &clipped) == AE_OK && clipped == 0 &&
          corner_count == 0, "no precomposition: no clip");
    CHECK(ae_lottie_batch_read_clip(lottie_batch, 1, 0, corners, 4, NULL, &clipped) == AE_ERROR_NULL_POINTER, "clip: null count");
    {
        /* A 40 × 20 precomposition at (10, 30) showing an 80 × 80 solid: the node is clipped to the
         * precomposition's rectangle, corners (w, 0), (w, h), (0, h), (0, 0) through its layer. */
        const char *clip_json =
            "{\"fr\":30,\"ip\":0,\"op\":30,\"w\":100,\"h\":100,\"assets\":[{\"id\":\"p\",\"layers\":[{\"ddd\":0,\"ty\":1,\"ip\":0,"
            "\"op\":30,\"sw\":80,\"sh\":80,\"sc\":\"#ff0000\",\"ks\":{}}]}],\"layers\":[{\"ddd\":0,\"ty\":0,\"refId\":\"p\",\"w\":40,"
            "\"h\":20,\"ip\":0,\"op\":30,\"ks\":{\"p\":{\"a\":0,\"k\":[10,30]}}}]}";
        ae_lottie *clip_lottie = NULL;
        ae_lottie_batch *clip_batch = NULL;
        size_t clip_first = 0;
        CHECK(ae_lottie_create(clip_json, strlen(clip_json), 100, 0, &clip_lottie) == AE_OK &&
              ae_lottie_batch_create(1, &clip_batch) == AE_OK && ae_lottie_batch_add(clip_batch, clip_lottie, 1, &clip_first) == AE_OK &&
              ae_lottie_batch_tick(clip_batch) == AE_OK, "a clipped file");
        CHECK(ae_lottie_batch_read_clip(clip_batch, 0, 0, NULL, 0, &corner_count, &clipped) == AE_ERROR_WRONG_SIZE && clipped == 1 &&
              corner_count == 4, "clip count asked with no buffer");
        CHECK(ae_lottie_batch_read_clip(clip_batch, 0, 0, corners, 4, &corner_count, &clipped) == AE_OK && clipped == 1 &&
              corner_count == 4 && corners[0] == 50 && corners[1] == 30 && corners[2] == 50 && corners[3] == 50 &&
              corners[4] == 10 && corners[5] == 50 && corners[6] == 10 && corners[7] == 30, "clip corners");
        CHECK(ae_lottie_batch_read_clip(clip_batch, 0, 1, corners, 4, &corner_count, &clipped) == AE_ERROR_OUT_OF_RANGE, "clip: no such node");
        size_t clip_json_length = 0;
        char clip_text[1024];
        double frame0 = 0;
        CHECK(ae_lottie_geometry_json(clip_lottie, &frame0, 1, clip_text, sizeof clip_text, &clip_json_length) == AE_OK &&
              strstr(clip_text, "\"clip\":[[\"M\",50,30],[\"L\",50,50],[\"L\",10,50],[\"L\",10,30],[\"L\",50,30],[\"Z\"]]") != NULL,
              "geometry json with the clip: %.300s", clip_text);
        ae_lottie_batch_destroy(clip_batch);
        ae_lottie_destroy(clip_lottie);
    }
    CHECK(ae_lottie_batch_read_nodes(lottie_batch, 3, lottie_nodes, 4, &node_count) == AE_ERROR_OUT_OF_RANGE, "no such instance");
    /* Removing instance 0 moves instance 2 (frame 20) into its number; removing the last moves nothing. */
    size_t moved = 0;
    CHECK(ae_lottie_batch_remove(lottie_batch, 3, &moved) == AE_ERROR_OUT_OF_RANGE, "remove: no such instance");
    CHECK(ae_lottie_batch_remove(lottie_batch, 0, &moved) == AE_OK && moved == 2, "remove 0: 2 moved (%zu)", moved);
    CHECK(ae_lottie_batch_read_nodes(lottie_batch, 2, lottie_nodes, 4, &node_count) == AE_ERROR_OUT_OF_RANGE, "2 is gone");
    CHECK(ae_lottie_batch_remove(lottie_batch, 1, &moved) == AE_OK && moved == SIZE_MAX, "remove the last: nothing moved");
    CHECK(ae_lottie_batch_remove(lottie_batch, 0, NULL) == AE_OK, "remove without out_moved");
    CHECK(ae_lottie_batch_add(lottie_batch, lottie, 3, &first) == AE_OK && first == 0, "add into an empty batch");
    CHECK(ae_lottie_batch_set_frames(lottie_batch, 0, instance_frames, 3) == AE_OK, "set frames again");
    CHECK(ae_lottie_batch_tick(lottie_batch) == AE_OK, "tick again");
    CHECK(ae_lottie_batch_read_nodes(lottie_batch, 1, lottie_nodes, 4, &node_count) == AE_OK && node_count == 1 &&
          near(lottie_nodes[0].opacity, 0.5, 1e-12), "nodes again");
    /* The batch keeps its file alive: destroying the handle first is fine. */
    CHECK(ae_lottie_destroy(lottie) == AE_OK && ae_lottie_destroy(lottie) == AE_ERROR_UNKNOWN_ID, "destroy lottie twice");
    CHECK(ae_lottie_batch_tick(lottie_batch) == AE_OK, "tick after the file's handle is gone");
    CHECK(ae_lottie_batch_add(lottie_batch, lottie, 1, &first) == AE_ERROR_UNKNOWN_ID, "destroyed file");
    CHECK(ae_lottie_batch_destroy(lottie_batch) == AE_OK && ae_lottie_batch_destroy(lottie_batch) == AE_ERROR_UNKNOWN_ID, "destroy batch twice");
    CHECK(ae_lottie_batch_tick((ae_lottie_batch *)engine) == AE_ERROR_UNKNOWN_ID, "an engine is not a Lottie batch");

    CHECK(ae_engine_destroy(engine) == AE_OK, "destroy");
    CHECK(ae_engine_destroy(engine) == AE_ERROR_INVALID_ENGINE, "destroy twice");
    CHECK(ae_engine_evaluate(engine, 0, 1) == AE_ERROR_INVALID_ENGINE, "destroyed engine");
    CHECK(ae_engine_destroy((ae_engine *)&timing) == AE_ERROR_INVALID_ENGINE, "foreign pointer");

    check_threads_and_stale_handles();

    /* Every non-finite duration is refused at this edge, −∞ too (the Swift API resolves it to the default). */
    {
        ae_engine *e = NULL;
        CHECK(ae_engine_create(&e) == AE_OK, "create");
        ae_timing t;
        ae_timing_init(&t);
        double from = 0, to = 1;
        uint64_t id = 0;
        double durations[] = {-INFINITY, INFINITY, NAN};
        for (int k = 0; k < 3; k++) {
            t.duration = durations[k];
            CHECK(ae_engine_add_basic(e, 1, "opacity", AE_SCALAR, &from, &to, NULL, 1, &t, &id) == AE_ERROR_INVALID_ARGUMENT &&
                  strstr(ae_last_error_message(), "duration") != NULL, "duration %g refused, naming the field", durations[k]);
        }
        CHECK(ae_engine_destroy(e) == AE_OK, "destroy");
    }

    if (failures == 0) printf("c-interface-check: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
