TDFCommand.tool.main()
