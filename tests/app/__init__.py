"""Tests of the Streamlit app: its pages run by AppTest, its helpers, and (marked ``browser``) the pages in Chromium."""
