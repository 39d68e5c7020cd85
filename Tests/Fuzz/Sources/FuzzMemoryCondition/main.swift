// main: hands fuzzMemoryCondition to libFuzzer (see runLibFuzzer).
import FuzzSupport

runLibFuzzer(fuzzMemoryCondition)
