// main: hands fuzzRender to libFuzzer (see runLibFuzzer).
import FuzzSupport

runLibFuzzer(fuzzRender)
