"""check / dump-ir test data: a kernel file that calls sys.exit(4) while it is imported (4 was once check's own
"convention not followed" exit code)."""

import sys

sys.exit(4)
