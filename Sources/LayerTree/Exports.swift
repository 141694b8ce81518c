// `import LayerTree` is all a host needs to write the seeds' programs: the values (Point, Rect,
// Color, Transform3D, …), the animations (BasicAnimation, KeyframeAnimation, SpringAnimation,
// AnimationGroup, TimingFunction) and the rest of AnimationCore's vocabulary come with it, as
// Core Animation's types come with QuartzCore. (`@_exported` is the compiler's spelling of a
// re-export; Swift has no other.)
@_exported import AnimationCore
