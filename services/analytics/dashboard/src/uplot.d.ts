// The page loads uPlot's ES module as /dashboard/uplot.js, which the service serves from node_modules
// (dashboard-files.ts): no bundler rewrites a package name, so the import names the file, typed as the package.
import uPlot from 'uplot';
export default uPlot;
