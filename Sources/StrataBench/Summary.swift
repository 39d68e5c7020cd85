// Summary: turns the samples of one workload into medians, a ratio and a verdict against its target.

enum Summary {
    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    static func result(
        _ w: Workload, backend: Backend, sizes: WorkloadSizes, runs: Int, strata: [Sample], baseline: [Sample],
        floor: [Sample] = [], floorName: String? = nil
    )
        -> WorkloadResult
    {
        let strataMs = median(strata.map(\.milliseconds))
        let baselineMs = median(baseline.map(\.milliseconds))
        let ratio = baselineMs > 0 ? strataMs / baselineMs : 0
        let mb = { (bytes: Int) in Double(bytes) / 1_048_576 }
        let strataPeak = strata.compactMap(\.peakGrowth).max().map(mb)
        let baselinePeak = baseline.compactMap(\.peakGrowth).max().map(mb)
        let target = Target.of(w, on: backend)
        var met: Bool?
        if let target {
            var ok = true
            if let max = target.maxRatio { ok = ok && ratio <= max }
            if let max = target.maxPeakMB { ok = ok && (strataPeak.map { $0 < max } ?? false) }
            met = ok
        }
        let reference = baseline.first?.checksum
        let floorMs = floor.isEmpty ? nil : median(floor.map(\.milliseconds))
        return WorkloadResult(
            workload: w, label: w.label(sizes), runs: runs,
            strataMs: rounded(strataMs), baselineMs: rounded(baselineMs), ratio: rounded(ratio, 1_000),
            strataRunsMs: strata.map { rounded($0.milliseconds) },
            baselineRunsMs: baseline.map { rounded($0.milliseconds) },
            strataPeakMB: strataPeak.map { rounded($0, 10) }, baselinePeakMB: baselinePeak.map { rounded($0, 10) },
            strataPeakResidentMB: strata.compactMap(\.peakResident).max().map { rounded(mb($0), 10) },
            target: target, met: met,
            checksumsMatch: (strata + baseline + floor).allSatisfy { $0.checksum == reference },
            digest: reference?.description,
            floorName: floorName, floorMs: floorMs.map { rounded($0) },
            floorRatio: floorMs.map { $0 > 0 ? rounded(strataMs / $0, 1_000) : 0 },
            floorRunsMs: floor.isEmpty ? nil : floor.map { rounded($0.milliseconds) })
    }

    static func rounded(_ x: Double, _ scale: Double = 100) -> Double { (x * scale).rounded() / scale }
}
