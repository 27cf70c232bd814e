import sys

from mfx.cli import main

sys.exit(main())
