from memchat.cli.main import main

main()
