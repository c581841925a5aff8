"""Streamlit-side helpers shared by the app's pages: URL-bound widgets, layout, caching.

``momkde_core`` holds the mathematics and ``momkde_core.plots`` the figures; this package
glues them to Streamlit (widgets whose state lives in the URL, ``st.cache_data`` wrappers
around the library's pure computations, error reporting) so that no page repeats another.
"""
