import sys

from icm.cli import main

sys.exit(main(sys.argv[1:]))
