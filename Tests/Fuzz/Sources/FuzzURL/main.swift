// main: hands fuzzDatabaseURL to libFuzzer (see runLibFuzzer).
import FuzzSupport

runLibFuzzer(fuzzDatabaseURL)
