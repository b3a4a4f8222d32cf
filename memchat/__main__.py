from memchat.cli import main

main()
