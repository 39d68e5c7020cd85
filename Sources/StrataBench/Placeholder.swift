// Placeholder.
import Strata
