PackagerCommand.tool.main()
