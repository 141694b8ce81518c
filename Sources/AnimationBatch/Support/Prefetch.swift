import CKernelSupport

/// Cache hints for code that is about to touch an object it has not touched since the last frame
/// (a property change on one of 10,000 layers). Every reference count operation is an atomic
/// instruction, and an atomic waits until all earlier stores have reached the cache: a change
/// that stores into a few cold lines, then retains something, waits for each of those lines in
/// turn. Asking for the lines first lets their loads overlap. Hints only: they never fault and
/// never change results.
package enum Prefetch {
    /// Asks for the first `bytes` of `object`'s storage, for writing.
    @inline(__always)
    package static func object(_ object: AnyObject, bytes: Int) {
        // Not retained: the caller holds `object`; the pointer is only a prefetch address.
        let p = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        var offset = 0
        while offset < bytes {   // bounded: `bytes / 64` steps
            animation_prefetch_write(p + offset)
            offset += 64
        }
    }
}
