from migrate.cli.main import run

run()
