import CKernelSupport

/// Cache hints for code that is about to touch an object it has not touched since the last frame
/// (a property change on one of 10,000 layers). Every reference count operation is an atomic
/// instruction, and on x86-64 an atomic waits until all earlier stores have reached the cache:
/// a change that stores into a few cold lines, then retains something, waits for each of those
/// lines in turn. Asking for the lines first lets their loads overlap. Hints only: they never
/// fault and never change results.
enum Prefetch {
    /// Where `object`'s storage starts: taken and let go of without touching the object (a
    /// reference held across the hints would be retained first, and retaining an object whose
    /// lines are not here yet is the wait the hints exist to avoid).
    @inline(__always)
    static func address(of object: AnyObject) -> UInt {
        // Not retained: only the address is kept, as an integer, for the hints below.
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    /// Asks for the `bytes` from `address` on, for writing.
    @inline(__always)
    static func lines(at address: UInt, bytes: Int) {
        guard let p = UnsafeRawPointer(bitPattern: address) else { return }
        var offset = 0
        while offset < bytes {   // bounded: `bytes / 64` steps
            animation_prefetch_write(p + offset)   // a hint: never faults
            offset += 64
        }
    }
}
