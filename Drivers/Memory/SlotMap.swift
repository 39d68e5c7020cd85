// SlotMap: primary key → slot, an array for the dense ids tables usually have and a dictionary for the rest.
import Strata

/// Maps each id to the slot of its row.
///
/// Auto-assigned ids run on from the largest one, so a run of consecutive ids `base + 1 … base + n`
/// lives in an array indexed by `id - base`: no hashing, and neighbouring ids sit side by side in
/// memory. The run starts at the first id stored in an empty map (ids are never reused, so after a
/// table is emptied they continue far from 1). Other ids live in a dictionary; an id just past the
/// run extends it, taking over what the dictionary held for the ids it newly covers.
struct SlotMap: Sendable {
    /// `dense[id - base - 1]` is the slot of `id`, or -1.
    private var dense: [Int] = []
    private var base: Int64 = 0
    private var sparse: [Int64: Int] = [:]

    /// The position of `id` in `dense`, or nil when the id is outside the run.
    @inline(__always)
    private func denseIndex(_ id: Int64) -> Int? {
        guard id > base else { return nil }
        let (k, overflow) = id.subtractingReportingOverflow(base)
        guard !overflow, k <= Int64(dense.count) else { return nil }
        return Int(k) - 1
    }

    subscript(id: Int64) -> Int? {
        get {
            if let k = denseIndex(id) {
                let slot = dense[k]
                return slot < 0 ? nil : slot
            }
            return sparse.isEmpty ? nil : sparse[id]
        }
        set {
            if let k = denseIndex(id) {
                dense[k] = newValue ?? -1
                return
            }
            guard let slot = newValue else {
                sparse[id] = nil
                return
            }
            if dense.isEmpty && sparse.isEmpty && id > Int64.min {
                base = id - 1
                dense.append(slot)
                return
            }
            // Extend the run when the id is near its end (so a gap stays small), else hash.
            // Any two Int64 ids may be further apart than Int64.max: every difference is checked.
            let (end, overflow) = base.addingReportingOverflow(Int64(dense.count))
            let (gap, gapOverflow) = id.subtractingReportingOverflow(end)
            if !overflow, !gapOverflow, id > end, gap <= Int64(max(64, dense.count / 2)) {
                var next = end + 1
                while next < id {
                    dense.append(sparse.isEmpty ? -1 : sparse.removeValue(forKey: next) ?? -1)
                    next += 1
                }
                if !sparse.isEmpty { sparse[id] = nil }
                dense.append(slot)
                return
            }
            sparse[id] = slot
        }
    }

    mutating func removeAll() {
        dense.removeAll(keepingCapacity: true)
        sparse.removeAll(keepingCapacity: true)
        base = 0
    }
}
