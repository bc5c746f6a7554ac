from hpceval.cli import main

raise SystemExit(main())
