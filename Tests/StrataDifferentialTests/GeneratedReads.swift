// GeneratedReads: the reads the differential generator writes from one seed, for the tests of its shares.
import Strata

@testable import StrataDifferential

enum GeneratedReads {
    /// The SELECTs of 40 generated worlds, 50 each (2,000), drawn from `seed` as the generator-share tests have always
    /// drawn them: a world, then its 50 reads, then the next world.
    static func sample(seed: UInt64) -> [Select] {
        var rng = SplitMix64(seed: seed)
        let values = EdgeValues(noncharacters: true)
        var out: [Select] = []
        out.reserveCapacity(2_000)
        for _ in 0..<40 {
            let generator = QueryGenerator(world: FuzzWorld.generate(&rng, values: values), values: values)
            for _ in 0..<50 { out.append(generator.select(&rng)) }
        }
        return out
    }
}
