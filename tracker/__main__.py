from tracker.cli.main import main

main()
