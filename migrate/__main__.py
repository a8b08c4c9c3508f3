from migrate.cli import main

raise SystemExit(main())
