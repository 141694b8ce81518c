/*
 * animation_engine.h — the C interface to AnimationEngine: Core Animation's animation model,
 * evaluated in bulk by SIMD kernels (AnimationBatch) and checked against the scalar reference
 * (AnimationCore). Semantics are those of Core Animation, written down in semantics.md.
 *
 * Conventions
 * - Every function returns an ae_status; AE_OK is 0. On any other status nothing was changed and
 *   ae_last_error_message() describes the problem (per thread, until the next call on it).
 * - Nothing crashes on bad input: null or destroyed engines, unknown ids, NaN, out-of-range
 *   indices and wrong sizes return an error code.
 * - An engine is not thread-safe: call it from one thread at a time (it uses its own worker
 *   threads inside ae_engine_evaluate; they end when the engine is destroyed or its thread count
 *   shrinks). Different engines are independent.
 * - Handles (ae_engine *, ae_curve_batch *, ae_lottie *, ae_lottie_batch *) are opaque values,
 *   not addresses: a destroyed handle stays refused (AE_ERROR_INVALID_ENGINE or
 *   AE_ERROR_UNKNOWN_ID) even after new objects of any kind are created, and a handle of one
 *   kind is refused where another is expected.
 * - Values are doubles, counted in components: 1 (number), 2 (point, size), 4 (rect x,y,w,h;
 *   color r,g,b,a), 16 (transform, row-major m11…m44). The kind comes from ae_value_kind.
 *   Values must be finite: a NaN or an infinity in a value, a time or a parameter is refused with
 *   AE_ERROR_INVALID_ARGUMENT (the Swift API lets NaN propagate; at this edge it is a mistake).
 *   An animation's values and path coordinates must also lie within ±1e38 (the engine holds
 *   values in single precision); beyond is refused the same way, naming the value.
 */
#ifndef ANIMATION_ENGINE_H
#define ANIMATION_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ae_status {
    AE_OK = 0,
    AE_ERROR_NULL_POINTER = 1,     /* a required pointer argument is null */
    AE_ERROR_INVALID_ENGINE = 2,   /* the engine is null, destroyed, or not one this library made */
    AE_ERROR_INVALID_ARGUMENT = 3, /* a value is out of its domain (NaN duration, unknown enum, …) */
    AE_ERROR_UNKNOWN_ID = 4,       /* no such animation, slot or curve batch */
    AE_ERROR_OUT_OF_RANGE = 5,     /* an index or count beyond what exists */
    AE_ERROR_WRONG_SIZE = 6,       /* a value count that does not match its kind, or a short buffer */
} ae_status;

typedef enum ae_value_kind {
    AE_SCALAR = 1,    /* 1 component */
    AE_POINT = 2,     /* x, y */
    AE_SIZE = 3,      /* width, height */
    AE_RECT = 4,      /* x, y, width, height */
    AE_COLOR = 5,     /* red, green, blue, alpha (non-premultiplied) */
    AE_TRANSFORM = 6, /* 16 numbers, row-major m11 … m44 (CATransform3D) */
} ae_value_kind;

/* The number of doubles a value of `kind` has, or 0 for an unknown kind. */
size_t ae_value_component_count(int kind);

typedef enum ae_fill_mode { AE_FILL_REMOVED = 0, AE_FILL_FORWARDS = 1, AE_FILL_BACKWARDS = 2, AE_FILL_BOTH = 3 } ae_fill_mode;

typedef enum ae_calculation_mode {
    AE_CALCULATION_LINEAR = 0, AE_CALCULATION_DISCRETE = 1, AE_CALCULATION_PACED = 2,
    AE_CALCULATION_CUBIC = 3, AE_CALCULATION_CUBIC_PACED = 4,
} ae_calculation_mode;

typedef enum ae_rotation_mode { AE_ROTATION_NONE = 0, AE_ROTATION_AUTO = 1, AE_ROTATION_AUTO_REVERSE = 2 } ae_rotation_mode;

/*
 * An animation's timing and the options every property animation shares (CAMediaTiming,
 * CAAnimation, CAPropertyAnimation). ae_timing_init fills Core Animation's defaults; a duration
 * ≤ 0 becomes 0.25 s when the animation is added, a begin time of 0 becomes the add time (0 here).
 */
typedef struct ae_timing {
    double begin_time;
    double duration;
    double speed;
    double time_offset;
    double repeat_count;      /* INFINITY repeats forever */
    double repeat_duration;
    int32_t autoreverses;     /* 0 or 1 */
    int32_t fill_mode;        /* ae_fill_mode */
    int32_t removed_on_completion;
    int32_t additive;
    int32_t cumulative;
    int32_t has_timing_function; /* 0: linear */
    double timing_function[4];   /* x1, y1, x2, y2 (x in [0, 1], |y| ≤ 1e9) */
} ae_timing;

/* Core Animation's defaults: speed 1, removed on completion, linear, everything else 0. */
void ae_timing_init(ae_timing *timing);

typedef enum ae_path_element_kind {
    AE_PATH_MOVE = 0,   /* x, y */
    AE_PATH_LINE = 1,   /* x, y */
    AE_PATH_QUAD = 2,   /* control (c1x, c1y), end (x, y) */
    AE_PATH_CURVE = 3,  /* control1 (c1x, c1y), control2 (c2x, c2y), end (x, y) */
    AE_PATH_CLOSE = 4,
    AE_PATH_ARC = 5,    /* center (x, y), radius c1x, start angle c1y, end angle c2x, clockwise c2y != 0 (CGPathAddArc) */
} ae_path_element_kind;

typedef struct ae_path_element {
    int32_t kind; /* ae_path_element_kind */
    double x, y, c1x, c1y, c2x, c2y;
} ae_path_element;

typedef enum ae_event_kind { AE_EVENT_STARTED = 0, AE_EVENT_STOPPED = 1 } ae_event_kind;
typedef enum ae_event_outcome {
    AE_OUTCOME_NONE = -1, AE_OUTCOME_FINISHED = 0, AE_OUTCOME_REMOVED = 1, AE_OUTCOME_REPLACED = 2, AE_OUTCOME_CANCELLED = 3,
} ae_event_outcome;

typedef struct ae_event {
    uint64_t animation; /* the id ae_add_* returned */
    int32_t kind;       /* ae_event_kind */
    int32_t outcome;    /* ae_event_outcome; AE_OUTCOME_NONE for a start */
} ae_event;

/* One slot whose presentation value changed in the last frame (ae_engine_read_changes). */
typedef struct ae_change {
    uint64_t layer;    /* the layer id */
    uint32_t property; /* index of the property's column (ae_engine_property_name) */
    uint32_t row;      /* the layer's row in that column (ae_engine_read_property) */
} ae_change;

typedef struct ae_engine ae_engine;

/* The calling thread's last error message ("" after success); valid until its next call. */
const char *ae_last_error_message(void);

/* A new, empty engine. */
ae_status ae_engine_create(ae_engine **out_engine);
/* Frees the engine; a null or already destroyed engine returns AE_ERROR_INVALID_ENGINE. */
ae_status ae_engine_destroy(ae_engine *engine);

/* The model value of `property` on `layer` (creating its output slot). */
ae_status ae_engine_set_model_value(ae_engine *engine, uint64_t layer, const char *property, int kind,
                                    const double *value, size_t count);

/* CABasicAnimation: any two (or fewer) of from/to/by may be null (semantics §4.1). */
ae_status ae_engine_add_basic(ae_engine *engine, uint64_t layer, const char *key_path, int kind,
                              const double *from, const double *to, const double *by, size_t count,
                              const ae_timing *timing, uint64_t *out_animation);

/* CAKeyframeAnimation over `value_count` values of `kind` (values holds value_count × components
 * doubles); key_times (value_count numbers) and timing_functions ((value_count − 1) × 4 numbers)
 * may be null. */
ae_status ae_engine_add_keyframe(ae_engine *engine, uint64_t layer, const char *key_path, int kind,
                                 const double *values, size_t value_count, const double *key_times,
                                 const double *timing_functions, int calculation_mode,
                                 const ae_timing *timing, uint64_t *out_animation);

/* CAKeyframeAnimation along a path (a point property); with a rotation mode the layer's
 * transform turns to the path's tangent (set the transform's model value first). */
ae_status ae_engine_add_path(ae_engine *engine, uint64_t layer, const char *key_path,
                             const ae_path_element *elements, size_t element_count, int calculation_mode,
                             int rotation_mode, const ae_timing *timing, uint64_t *out_animation);

/* CASpringAnimation; a timing duration ≤ 0 becomes the spring's settling duration. */
ae_status ae_engine_add_spring(ae_engine *engine, uint64_t layer, const char *key_path, int kind,
                               const double *from, const double *to, const double *by, size_t count,
                               double mass, double stiffness, double damping, double initial_velocity,
                               int allows_overdamping, const ae_timing *timing, uint64_t *out_animation);

/* Retargets `count` basic or spring animations at once (semantics §4.1, §10): animations[k] now
 * runs from value k of `from` (null: every one from the value beneath) to value k of `to`,
 * beginning at begin_time, its key path, duration, timing function and spring parameters kept,
 * as if replaced by that copy: its stop event (outcome replaced) comes with the next frame and
 * animations[k] is overwritten with the new id. The values are of one kind, `components` doubles
 * each, packed (count × components). Every entry is checked first: on an error nothing changes
 * (AE_ERROR_UNKNOWN_ID for a stale id or one named twice, AE_ERROR_INVALID_ARGUMENT for an
 * animation that is not basic or spring or animates another kind, or a value that is not finite
 * or is beyond ±1e38, AE_ERROR_WRONG_SIZE when `components` is not the kind's). */
ae_status ae_engine_retarget(ae_engine *engine, uint64_t *animations, size_t count, int kind,
                             const double *from, const double *to, size_t components, double begin_time);

/* Removes an animation (its stop event, outcome removed, comes with the next frame). */
ae_status ae_engine_remove(ae_engine *engine, uint64_t animation);

/* Removes a layer: its animations stop (outcome cancelled, with the next frame's events) and its
 * values are freed. AE_ERROR_UNKNOWN_ID when the engine knows no such layer. */
ae_status ae_engine_remove_layer(ae_engine *engine, uint64_t layer);

/* The number of animations, and of tracks (animated values) they compiled to. */
ae_status ae_engine_counts(ae_engine *engine, size_t *out_animations, size_t *out_tracks);

/* Evaluates every animation at `time` (seconds). threads: 0 = one per processor, 1 = this
 * thread only, n = at most n. Results are bit-identical for any thread count. */
ae_status ae_engine_evaluate(ae_engine *engine, double time, int threads);

/* Settle queries after the last frame (docs/settling.md), each written where its pointer is not
 * null:
 * - *out_settled: 1 when, without new input, no later frame changes a value or reports an event
 *   (every animation ended, kept by a forwards fill, or frozen by speed 0; no removal waits to be
 *   reported), else 0;
 * - *out_has_next and *out_next_time: 1 and the earliest time after the last frame's at which an
 *   animation begins or ends its active duration (inside groups too), or at which an event is due
 *   (the next Double after the last frame's time); 0 and 0 when there is none, or before the
 *   first frame;
 * - *out_infinite: 1 while some animation repeats forever on a moving clock (never settled);
 * - *out_running: 1 while some animation is in its active duration on a moving clock (its value
 *   may change at every frame); when 0, nothing changes before the next time.
 * A host that sees nothing running skips frames until the next time (or new input); a test jumps
 * from event to event. */
ae_status ae_engine_settle_state(ae_engine *engine, int *out_settled, int *out_has_next, double *out_next_time,
                                 int *out_infinite, int *out_running);

/* The presentation value of `property` on `layer` after the last frame: its component count
 * goes to *out_count (when not null) and min(capacity, count) components to out (which may be null
 * when capacity is 0). AE_ERROR_UNKNOWN_ID when the layer has no such slot;
 * AE_ERROR_WRONG_SIZE when capacity is short (out_count still set). */
ae_status ae_engine_read_value(ae_engine *engine, uint64_t layer, const char *property, double *out,
                               size_t capacity, size_t *out_count);

/* The velocity of `property` on `layer` at the last frame's time, d value/dt per second of the
 * time given to ae_engine_evaluate (docs/velocity.md), in the components and order of
 * ae_engine_read_value: computed analytically from the layer's animations (the timing curve's
 * slope, a spring's closed form, a keyframe segment's or a path's derivative), not differenced;
 * zeros when nothing moves the value. Component count to *out_count, min(capacity, count)
 * components to out (null allowed when capacity is 0). AE_ERROR_UNKNOWN_ID when the layer has no
 * such slot; AE_ERROR_INVALID_ARGUMENT before the first ae_engine_evaluate; AE_ERROR_WRONG_SIZE
 * when capacity is short. A read costs microseconds (the layer's animations are read back) unless
 * the velocity column is on (ae_engine_set_velocity_column), when it reads what the frame computed. */
ae_status ae_engine_read_velocity(ae_engine *engine, uint64_t layer, const char *property, double *out,
                                  size_t capacity, size_t *out_count);

/* Whether each ae_engine_evaluate also computes every slot's velocity, in the kernels beside the
 * values (on != 0; off by default, when nothing is computed or kept for velocities). Takes effect
 * at the next ae_engine_evaluate; the velocities of the frames after it are then read per slot by
 * ae_engine_read_velocity and in bulk by ae_engine_read_property_velocity. */
ae_status ae_engine_set_velocity_column(ae_engine *engine, int on);

/* Every layer's velocity of `property` after the last frame, without copying, laid out as
 * ae_engine_read_property's values (the same rows in the same order: *out_values points at
 * count × components doubles). Valid as long as those values. *out_count is 0 (and the pointer
 * null) when no layer has the property; AE_ERROR_INVALID_ARGUMENT when the last frame computed no
 * velocities (ae_engine_set_velocity_column was off). Any out pointer may be null. */
ae_status ae_engine_read_property_velocity(ae_engine *engine, const char *property, const double **out_values,
                                           size_t *out_count, size_t *out_components);

/* The events of the last frame: their number to *out_count, and min(capacity, count) of them to out.
 * Every animation reports its start at most once and its stop exactly once; an animation removed
 * on completion is removed from the engine by the frame that finishes it (its id goes stale). */
ae_status ae_engine_read_events(ae_engine *engine, ae_event *out, size_t capacity, size_t *out_count);

/* Every layer's presentation value of `property` after the last frame, without copying:
 * *out_values points at count × components doubles, row after row (components in the order of
 * ae_engine_read_value), *out_layers at the count layer ids of the rows. Rows are in no
 * particular order. Both pointers stay valid until the engine next changes (an animation or model
 * value added or removed) or evaluates; *out_count is 0 (and the pointers null) when no layer has
 * the property. Any out pointer may be null. */
ae_status ae_engine_read_property(ae_engine *engine, const char *property, const double **out_values,
                                  const uint64_t **out_layers, size_t *out_count, size_t *out_components);

/* The name of property column `index` (0 ≤ index < the count given to *out_count when `index`
 * is out of range: then AE_ERROR_OUT_OF_RANGE). The name stays valid while the engine lives. */
ae_status ae_engine_property_name(ae_engine *engine, uint32_t index, const char **out_name, size_t *out_count);

/* The slots whose presentation value changed in the last frame (a model value set since the frame
 * before, a layer's new property, or a frame's value that differs from the one shown before), so
 * that a renderer redraws only those: their number to *out_count, min(capacity, count) of them
 * to out. Slots removed since the frame (ae_engine_remove_layer) are left out of both. */
ae_status ae_engine_read_changes(ae_engine *engine, ae_change *out, size_t capacity, size_t *out_count);

/* Timing curves in bulk (workload W1): a batch of `count` cubic-Bézier timing functions
 * (control_points holds x1, y1, x2, y2 per function, x in [0, 1]), evaluated at one input each.
 * Error ≤ 2e-5 (docs/architecture.md's precision table); see AnimationBatch's TimingCurveBatch. */
typedef struct ae_curve_batch ae_curve_batch;
ae_status ae_curve_batch_create(const double *control_points, size_t count, ae_curve_batch **out_batch);
ae_status ae_curve_batch_destroy(ae_curve_batch *batch);
/* outputs[i] = function i at inputs[i] (inputs clamped to [0, 1], NaN gives NaN); count must match. */
ae_status ae_curve_batch_evaluate(ae_curve_batch *batch, const float *inputs, float *outputs, size_t count, int threads);

/* The scalar reference (AnimationCore, Double precision) for one timing function: for checks.
 * x outside [0, 1] is clamped; a NaN or infinite x is refused (AE_ERROR_INVALID_ARGUMENT). */
ae_status ae_timing_function_value(const double control_points[4], double x, double *out_y);

/* Lottie (Bodymovin) files in the subset L1 (AnimationLottie; docs/lottie.md).
 * A file is read and compiled once for instances fitted into size × size device pixels; a batch
 * evaluates many instances of one or several files, each at its own frame, over all cores, with no
 * allocation per tick. A file outside L1 is refused with AE_ERROR_INVALID_ARGUMENT and a message
 * naming every such feature and its JSON path; malformed JSON names its line and column. */
typedef struct ae_lottie ae_lottie;
/* Reads `length` bytes of UTF-8 JSON; `lenient` skips the purely cosmetic features outside L1. */
ae_status ae_lottie_create(const char *json, size_t length, double size, int lenient, ae_lottie **out_lottie);
ae_status ae_lottie_destroy(ae_lottie *lottie);
/* The composition: frames per second, first frame (ip), one past the last (op), width, height. */
ae_status ae_lottie_info(ae_lottie *lottie, double *out_frame_rate, double *out_in_point, double *out_out_point,
                         double *out_width, double *out_height);
/* The geometry document of `animation-engine lottie geometry` for `frame_count` frames (ip ≤ f < op):
 * its length to *out_length (without the NUL), and when capacity > length the text and a NUL to out. */
ae_status ae_lottie_geometry_json(ae_lottie *lottie, const double *frames, size_t frame_count, char *out, size_t capacity,
                                  size_t *out_length);

typedef struct ae_lottie_batch ae_lottie_batch;
/* A batch evaluated on up to `threads` threads (0: one per processor). */
ae_status ae_lottie_batch_create(int threads, ae_lottie_batch **out_batch);
ae_status ae_lottie_batch_destroy(ae_lottie_batch *batch);
/* Adds `count` instances of `lottie` (which the batch keeps alive); the first one's number to *out_first. */
ae_status ae_lottie_batch_add(ae_lottie_batch *batch, ae_lottie *lottie, size_t count, size_t *out_first);
/* Removes `instance`; the last instance takes its number, so that numbers stay 0 … count − 1. When
 * out_moved is not null it receives the number the moved instance had (the new count), or SIZE_MAX
 * when `instance` was the last and nothing moved. The moved instance keeps its file, frame and last
 * geometry. A removed instance's buffers go to the next instance of the same file, or back to the
 * system once unused space outgrows the used. */
ae_status ae_lottie_batch_remove(ae_lottie_batch *batch, size_t instance, size_t *out_moved);
/* Instances first … first + count − 1 show frames[0 … count − 1] from the next tick (finite numbers). */
ae_status ae_lottie_batch_set_frames(ae_lottie_batch *batch, size_t first, const double *frames, size_t count);
/* Evaluates every instance at its frame. Instances of one file at the same frame share one
 * evaluation: the others copy its geometry, the same bits. */
ae_status ae_lottie_batch_tick(ae_lottie_batch *batch);

/* One node an instance drew in the last tick: a fill or a stroke, its colour (0–1), stroke width in
 * device pixels, total opacity, and how many path elements and numbers it has. A batch keeps its
 * output in single precision (as rlottie does): these numbers and the path's are the reference's
 * values (ae_lottie_geometry_json) rounded to the nearest float. */
typedef struct ae_lottie_node {
    int is_fill;
    double color[4];
    double stroke_width;
    double opacity;
    size_t element_count;
    size_t number_count;
} ae_lottie_node;
/* The instance's node count to *out_count, min(capacity, count) nodes to out (back to front). */
ae_status ae_lottie_batch_read_nodes(ae_lottie_batch *batch, size_t instance, ae_lottie_node *out, size_t capacity,
                                     size_t *out_count);
/* Node `node`'s path: element kinds (AE_PATH_MOVE, AE_PATH_LINE, AE_PATH_CURVE, AE_PATH_CLOSE) to
 * kinds and their numbers (x, y per point; a cubic's two controls, then its end) to numbers; the
 * buffers must hold the node's element_count and number_count. */
ae_status ae_lottie_batch_read_path(ae_lottie_batch *batch, size_t instance, size_t node, int *kinds, size_t kind_capacity,
                                    double *numbers, size_t number_capacity);
/* Node `node`'s clip: what the precompositions around it (those with a w and h) let it draw into,
 * in device pixels — a convex polygon, its corners' x, y to corners (single precision, like the
 * path) and their count to *out_count; a precomposition's rectangle alone has 4, in the order
 * (w, 0), (w, h), (0, h), (0, 0) through its layer's matrix. *out_clipped is 0 when nothing clips
 * the node (count 0), 1 when something does (count 0 then means: everything is clipped). corners
 * may be null when capacity is 0, to ask for the count; a count past capacity is
 * AE_ERROR_WRONG_SIZE with the count and *out_clipped set. */
ae_status ae_lottie_batch_read_clip(ae_lottie_batch *batch, size_t instance, size_t node, double *corners, size_t capacity,
                                    size_t *out_count, int *out_clipped);

/* Internal: sets the calling thread's message (used by the Swift implementation). */
void ae_internal_set_message(const char *message);

#ifdef __cplusplus
}
#endif

#endif /* ANIMATION_ENGINE_H */
