print("cinegraph")
