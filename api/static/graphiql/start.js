// graphmem's GraphiQL page: renders GraphiQL (with the explorer plugin) against the /graphql
// that served the page. `?q=` and `?variables=` in the address hold the editors' text, so a
// link can share a query. Headers typed in the headers editor (say an Authorization: Bearer
// token) are not kept in the browser's storage.
(function () {
  "use strict";

  var WELCOME = [
    "# graphmem GraphiQL. Run: Ctrl-Enter or the play button.",
    "# Complete: Ctrl-Space. Schema docs: the top-left icon.",
    "#",
    "# A 401 (UNAUTHENTICATED) means the server wants a token:",
    "# open Headers below, enter",
    '#   {"Authorization": "Bearer <token>"}',
    "# and re-fetch the schema (Shift-Ctrl-R).",
    "",
    "{",
    "  health {",
    "    engine",
    "    reachable",
    "    version",
    "    graphmemVersion",
    "  }",
    "}",
    "",
  ].join("\n");

  var params = new URLSearchParams(window.location.search);
  var url = window.location.pathname; // the /graphql this page came from

  function remember(key, value) {
    if (value) {
      params.set(key, value);
    } else {
      params.delete(key);
    }
    var search = params.toString();
    history.replaceState(null, "", search ? "?" + search : url);
  }

  var fetcher = GraphiQL.createFetcher({ url: url });
  var explorer = GraphiQLPluginExplorer.explorerPlugin();

  function App() {
    var query = React.useState(params.get("q") || WELCOME);
    var variables = React.useState(params.get("variables") || undefined);
    return React.createElement(GraphiQL, {
      fetcher: fetcher,
      plugins: [explorer],
      query: query[0],
      variables: variables[0],
      onEditQuery: function (text) {
        query[1](text);
        remember("q", text);
      },
      onEditVariables: function (text) {
        variables[1](text);
        remember("variables", text);
      },
      defaultEditorToolsVisibility: true,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
      inputValueDeprecation: true,
    });
  }

  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(App));
})();
