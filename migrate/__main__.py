from migrate.cli.entry import run

run()
