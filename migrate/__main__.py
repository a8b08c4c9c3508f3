from migrate.cli.main import main

raise SystemExit(main())
