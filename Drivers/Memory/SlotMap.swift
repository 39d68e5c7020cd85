// SlotMap: primary key → slot, an array for the dense ids tables usually have and a dictionary for the rest.
import Strata

/// Maps each id to the slot of its row.
///
/// Auto-assigned ids run 1, 2, 3…, so ids from 1 up to a bound live in an array indexed by id: no
/// hashing, and consecutive ids sit side by side in memory. Ids past the bound (or below 1) live in
/// a dictionary; an id just past the bound extends the array, taking over what the dictionary held
/// for the ids it newly covers.
struct SlotMap: Sendable {
    /// `dense[id - 1]` is the slot of `id`, or -1.
    private var dense: [Int] = []
    private var sparse: [Int64: Int] = [:]

    subscript(id: Int64) -> Int? {
        get {
            if id >= 1 && id <= dense.count {
                let slot = dense[Int(id) - 1]
                return slot < 0 ? nil : slot
            }
            return sparse.isEmpty ? nil : sparse[id]
        }
        set {
            if id >= 1 && id <= dense.count {
                dense[Int(id) - 1] = newValue ?? -1
                return
            }
            // Extend the array when the id is near its end (so a gap stays small), else hash.
            if let slot = newValue, id >= 1, id - Int64(dense.count) <= Int64(max(64, dense.count / 2)) {
                let end = Int(id)
                while dense.count < end - 1 {
                    let covered = Int64(dense.count + 1)
                    dense.append(sparse.isEmpty ? -1 : sparse.removeValue(forKey: covered) ?? -1)
                }
                if !sparse.isEmpty { sparse[id] = nil }
                dense.append(slot)
                return
            }
            sparse[id] = newValue
        }
    }

    mutating func removeAll() {
        dense.removeAll(keepingCapacity: true)
        sparse.removeAll(keepingCapacity: true)
    }
}
